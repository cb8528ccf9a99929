import { defineSignal } from '@temporalio/workflow';

// Messages and inputs of the webhook delivery workflows, shared by the workflows, the relay, the
// API and the tests.

/** One lane: the events of one job, to one endpoint, in order. */
export interface LaneInput {
  webhookId: string;
  jobId: string;
  /** A 2xx within this is success; the delivery activity's own budget is a little longer. */
  deliveryTimeoutMs: number;
}

/** A lane's workflow ID names its endpoint and its job: paste either into the UI's search. */
export const laneWorkflowId = (webhookId: string, jobId: string) => `webhook-${webhookId}-${jobId}`;

/** New events may wait in the outbox for this lane: read it again before closing. */
export const wakeSignal = defineSignal('wake');

export interface DeliverNextInput {
  webhookId: string;
  jobId: string;
  /** The lane's cursor; undefined: after what the delivery log shows done. */
  afterSeq?: number;
  /** When the first attempt was made: failures are retried until the retry window has passed since. */
  firstAttemptAt: number;
}

/** What `deliverNext` did: delivered (or gave up on) the lane's next event, found none, or stopped. */
export type NextDelivery =
  | { kind: 'delivered'; seq: number; outcome: 'succeeded' | 'failed' | 'disabled' }
  /** Nothing after `cursor` yet. */
  | { kind: 'none'; cursor: number }
  /** The endpoint was deleted or disabled: nothing more is sent to it. */
  | { kind: 'stop'; reason: 'deleted' | 'disabled' };

/** `disabled`: the receiver answered 410 and the endpoint was disabled; `dropped`: the endpoint or event is gone. */
export type DeliverOutcome = 'succeeded' | 'failed' | 'disabled' | 'dropped';

export interface RedeliveryInput {
  webhookId: string;
  eventSeq: number;
  deliveryTimeoutMs: number;
}

/** The failure type of an attempt that will be retried; its message is what the receiver did. */
export const ATTEMPT_FAILED = 'webhook.attempt_failed';
