import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import type { ProjectJobInput } from '../../workflows/definitions';
import { loadToolsDir } from '../../src/config';
import { startLocalStack } from '../../src/stack/local-stack';
import { freePort } from '../../src/stack/ports';
import { type WebhookWorkflows, createWebhookWorkflows } from '../../src/temporal/webhook-workflow-client';
import {
  type JobSnapshot,
  assignUpdate,
  cancelSignal,
  cancelUpdate,
  recheckAgentSignal,
  resultUpdate,
  withdrawLeaseSignal,
} from '../../workflows/definitions';
import { laneWorkflowId } from '../../workflows/webhook-definitions';
import {
  FakeActivities,
  FakeWebhookActivities,
  UNIT_TIMINGS,
  finalOf,
  startJob,
  waitForSnapshot,
  workflowInput,
} from './workflow-harness';

// `npm run record:histories`: runs the job workflow and the webhook delivery workflows through
// scripted lives on a throw-away Temporal dev server and writes each history to
// test/fixtures/histories (the webhook runs under webhooks/). The replay test then holds every
// later version of the workflows to these recorded decisions. Re-record only when a change to a
// workflow is meant to break old histories (and version it with patching instead if runs of the
// old code may still be open). Names as arguments record only those scenarios and leave the other
// files as they are: `npm run record:histories -- agent-lost-final webhooks/redelivery`.

const OUT_DIR = path.resolve(__dirname, '../fixtures/histories');
type Scenario = (client: Client, taskQueue: string, fake: FakeActivities) => Promise<WorkflowHandle>;

const assign = (h: WorkflowHandle, leaseId: string) =>
  h.executeUpdate(assignUpdate, { args: [{ leaseId, agentId: 'agent-rec' }] });
const result = (h: WorkflowHandle, leaseId: string, exitCode: number) =>
  h.executeUpdate(resultUpdate, { args: [{ leaseId, exitCode, runtimeMs: 7 }] });
const claimable = (h: WorkflowHandle) =>
  waitForSnapshot(h, (s) => s.state === 'QUEUED' && Date.parse(s.availableAt) <= Date.now());

/**
 * Waits until the workflow has written attempt `attempt` once its backoff was over. Assigning as
 * soon as the clock allows (`claimable`) races the backoff timer: an assignment that wins cancels
 * the timer, and that write is never recorded. `requeuedByRun`: the run wrote the requeue itself
 * too (an agent loss), so that write is the second of the attempt, not the first (after a result,
 * the Update's caller wrote the requeue).
 */
async function backoffOver(
  h: WorkflowHandle,
  fake: FakeActivities,
  attempt: number,
  requeuedByRun: boolean,
): Promise<void> {
  const jobId = h.workflowId;
  const deadline = Date.now() + 10_000;
  const queued = ({ snapshot: s }: ProjectJobInput) =>
    s.jobId === jobId && s.state === 'QUEUED' && s.attempt === attempt;
  while (fake.projections.filter(queued).length < (requeuedByRun ? 2 : 1)) {
    if (Date.now() > deadline) throw new Error(`attempt ${attempt} was never re-projected after its backoff`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const SCENARIOS: Record<string, Scenario> = {
  // Agent lost once, requeued; the next attempt exits 1 and retries after its backoff; then success.
  'loss-retry-success': async (client, taskQueue, fake) => {
    const h = await startJob(
      client,
      taskQueue,
      workflowInput({ retry: { maxAttempts: 2, backoffSeconds: 1 }, labels: { os: 'linux' } }),
    );
    await assign(h, 'lease-1');
    fake.silent.add('lease-1');
    await claimable(h);
    await assign(h, 'lease-2');
    await result(h, 'lease-2', 1);
    await result(h, 'lease-2', 1);
    await claimable(h);
    await assign(h, 'lease-3');
    await result(h, 'lease-3', 0);
    return h;
  },
  // The happy path: assigned, succeeds. No activity, three workflow tasks.
  succeeded: async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput());
    await assign(h, 'lease-1');
    await result(h, 'lease-1', 0);
    return h;
  },
  // The assignment's answer was lost on the caller's side: the lease is withdrawn, the job requeued.
  'withdrawn-then-succeeded': async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput());
    await assign(h, 'lease-1');
    await h.signal(withdrawLeaseSignal, { leaseId: 'lease-1' });
    await claimable(h);
    await waitForSnapshot(h, (s) => s.attempt === 2);
    await assign(h, 'lease-2');
    await result(h, 'lease-2', 0);
    return h;
  },
  // Runs into its timeout.
  timeout: async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput({ timeoutSeconds: 1 }));
    await assign(h, 'lease-1');
    return h;
  },
  // Drain deadline requeues; the next attempt is cancelled and the grace runs out.
  'drain-cancel-grace': async (client, taskQueue, fake) => {
    const h = await startJob(client, taskQueue, workflowInput());
    await assign(h, 'lease-1');
    fake.drainDeadlines.set('lease-1', Date.now() + 200);
    await h.signal(recheckAgentSignal);
    await claimable(h);
    await assign(h, 'lease-2');
    await h.executeUpdate(cancelUpdate);
    return h;
  },
  // A manual retry's run: it projects its QUEUED state first, then is cancelled while queued.
  'manual-retry-cancel-queued': async (client, taskQueue) => {
    const input = { ...workflowInput(), attempt: 2, version: 5, manualRetry: true };
    const h = await startJob(client, taskQueue, input);
    await waitForSnapshot(h, (s) => s.version === 6);
    await h.executeUpdate(cancelUpdate);
    return h;
  },
  // A running job is cancelled and its agent confirms with its result for the lease.
  'cancel-running-confirmed': async (client, taskQueue) => {
    // A long grace: the confirmation, not the grace, must end the job.
    const h = await startJob(client, taskQueue, workflowInput({}, { ...UNIT_TIMINGS, cancelGraceMs: 30_000 }));
    await assign(h, 'lease-1');
    await h.executeUpdate(cancelUpdate);
    await result(h, 'lease-1', 143);
    return h;
  },
  // Cancelled in Temporal (the UI's Request Cancellation) while queued: the run cancels the job and writes it.
  'temporal-cancel-queued': async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput());
    await h.cancel();
    return h;
  },
  // Cancelled in Temporal while running: its agent is told, and confirms with its result.
  'temporal-cancel-running': async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput({}, { ...UNIT_TIMINGS, cancelGraceMs: 30_000 }));
    await assign(h, 'lease-1');
    await h.cancel();
    await waitForSnapshot(h, (s) => s.state === 'CANCELLING');
    await result(h, 'lease-1', 143);
    return h;
  },
  // The operator's `cancel` signal from the Temporal UI while running: its agent is told, and confirms.
  'cancel-signal-running': async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput({}, { ...UNIT_TIMINGS, cancelGraceMs: 30_000 }));
    await assign(h, 'lease-1');
    await h.signal(cancelSignal, { reason: 'from the UI' });
    await waitForSnapshot(h, (s) => s.state === 'CANCELLING');
    await result(h, 'lease-1', 143);
    return h;
  },
  // Exits 1, is requeued and projected again when its backoff is over; exits 2 with no retries left.
  'exit-code-exhausted': async (client, taskQueue, fake) => {
    const h = await startJob(client, taskQueue, workflowInput({ retry: { maxAttempts: 2, backoffSeconds: 1 } }));
    await assign(h, 'lease-1');
    await result(h, 'lease-1', 1);
    await backoffOver(h, fake, 2, false);
    await assign(h, 'lease-2');
    await result(h, 'lease-2', 2);
    return h;
  },
  // The agent is lost as many times as the loss maximum allows; each requeue is projected again
  // when its backoff is over; the last loss fails the job with agent_lost.
  'agent-lost-final': async (client, taskQueue, fake) => {
    const h = await startJob(client, taskQueue, workflowInput());
    for (let i = 1; i <= UNIT_TIMINGS.agentLossMaxAttempts; i++) {
      if (i > 1) await backoffOver(h, fake, i, true);
      fake.silent.add(`lease-${i}`);
      await assign(h, `lease-${i}`);
    }
    return h;
  },
};

/** How each scenario must end; a recording that ends otherwise is not written. */
const ENDS: Record<string, Partial<JobSnapshot>> = {
  'loss-retry-success': { state: 'SUCCEEDED', attempt: 3 },
  succeeded: { state: 'SUCCEEDED', attempt: 1, exitCode: 0 },
  'withdrawn-then-succeeded': { state: 'SUCCEEDED', attempt: 2 },
  timeout: { state: 'TIMED_OUT', failureReason: 'timeout' },
  'drain-cancel-grace': { state: 'CANCELLED', attempt: 2 },
  'manual-retry-cancel-queued': { state: 'CANCELLED' },
  'cancel-running-confirmed': { state: 'CANCELLED', exitCode: 143 },
  'temporal-cancel-queued': { state: 'CANCELLED', failureReason: 'cancelled in Temporal' },
  'temporal-cancel-running': { state: 'CANCELLED', failureReason: 'cancelled in Temporal', exitCode: 143 },
  'cancel-signal-running': { state: 'CANCELLED', failureReason: 'cancelled in Temporal', exitCode: 143 },
  'exit-code-exhausted': { state: 'FAILED', failureReason: 'exit_code', exitCode: 2, attempt: 2 },
  'agent-lost-final': { state: 'FAILED', failureReason: 'agent_lost', attempt: UNIT_TIMINGS.agentLossMaxAttempts },
};

// Webhook delivery: lanes started and woken, and redeliveries started, by the relay's own client.
type WebhookScenario = (
  webhooks: WebhookWorkflows,
  client: Client,
  fake: FakeWebhookActivities,
) => Promise<WorkflowHandle>;

let lanes = 0;
const newLane = () => ({
  webhookId: 'wh_rec',
  jobId: `job_rec${Date.now().toString(36)}${(lanes++).toString(36)}`,
  workspaceId: 'ws_rec',
  url: 'https://receiver.example/hooks',
});
const laneHandle = (client: Client, lane: ReturnType<typeof newLane>) =>
  client.workflow.getHandle(laneWorkflowId(lane.webhookId, lane.jobId));

/** A lane woken for a job whose outbox holds `seqs`. */
async function startLane(
  webhooks: WebhookWorkflows,
  client: Client,
  fake: FakeWebhookActivities,
  seqs: number[],
): Promise<WorkflowHandle> {
  const lane = newLane();
  fake.outbox.set(lane.jobId, seqs);
  await webhooks.wake(lane);
  return laneHandle(client, lane);
}

const WEBHOOK_SCENARIOS: Record<string, WebhookScenario> = {
  // Two events delivered in order; the next read finds nothing and the lane closes.
  'webhooks/lane-delivered': (webhooks, client, fake) => startLane(webhooks, client, fake, [1, 2]),
  // The receiver fails each event's first attempt: Temporal retries the activity; the first event
  // is then delivered, the second's retry window runs out (logged failed) and the lane moves on.
  'webhooks/lane-retried': (webhooks, client, fake) => {
    fake.failuresBefore.set(1, 1).set(2, 1);
    fake.givenUp.add(2);
    return startLane(webhooks, client, fake, [1, 2]);
  },
  // The relay wakes the lane while its read finds nothing: it reads again rather than close.
  'webhooks/lane-woken-while-reading': async (webhooks, client, fake) => {
    const lane = newLane();
    fake.onEmptyRead = async () => {
      fake.outbox.set(lane.jobId, [1]);
      await webhooks.wake(lane);
    };
    await webhooks.wake(lane);
    return laneHandle(client, lane);
  },
  // `:redeliver`: one more attempt at a logged event, as its own run.
  'webhooks/redelivery': async (webhooks, client) => {
    const redeliveryId = `dlv_rec${Date.now().toString(36)}`;
    await webhooks.redeliver({ webhookId: 'wh_rec', eventSeq: 1, workspaceId: 'ws_rec', redeliveryId });
    return client.workflow.getHandle(`webhook-redelivery-${redeliveryId}`);
  },
};

/** What each webhook run must return; a recording that ends otherwise is not written. */
const WEBHOOK_ENDS: Record<string, unknown> = {
  'webhooks/lane-delivered': { succeeded: 2, failed: 0 },
  'webhooks/lane-retried': { succeeded: 1, failed: 1 },
  'webhooks/lane-woken-while-reading': { succeeded: 1, failed: 0 },
  'webhooks/redelivery': 'succeeded',
};

function selected<T>(scenarios: Record<string, T>, names: string[]): [string, T][] {
  return Object.entries(scenarios).filter(([name]) => names.length === 0 || names.includes(name));
}

async function save(name: string, handle: WorkflowHandle, end: string): Promise<void> {
  const history = await handle.fetchHistory();
  const file = path.join(OUT_DIR, `${name}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${historyToJSON(history)}\n`);
  console.log(`${name}: ${end}, ${history.events?.length} events`);
}

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((n) => !(n in SCENARIOS) && !(n in WEBHOOK_SCENARIOS));
  if (unknown.length > 0)
    throw new Error(
      `no scenario ${unknown.join(', ')}; there are ${[...Object.keys(SCENARIOS), ...Object.keys(WEBHOOK_SCENARIOS)].join(', ')}`,
    );
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-record-'));
  const stack = await startLocalStack({
    dataDir,
    toolsDir: loadToolsDir(),
    ports: { postgres: 0, temporal: await freePort() },
    ephemeralTemporal: true,
    start: { postgres: false, temporal: true, minio: false },
    log: (msg) => console.error(`[stack] ${msg}`),
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: stack.temporalAddress! });
  const fake = new FakeActivities();
  const hooks = new FakeWebhookActivities();
  const taskQueue = 'record-histories';
  const webhooks = createWebhookWorkflows(env.client, { taskQueue, deliveryTimeoutMs: 15_000 });
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: { ...fake.activities, ...hooks.activities },
  });
  try {
    await worker.runUntil(async () => {
      for (const [name, scenario] of selected(SCENARIOS, names)) {
        fake.reset();
        const handle = await scenario(env.client, taskQueue, fake);
        const { snapshot: end } = await finalOf(handle);
        const wrong = Object.entries(ENDS[name] ?? {}).filter(([k, v]) => end[k as keyof JobSnapshot] !== v);
        if (wrong.length > 0)
          throw new Error(`${name} ended ${JSON.stringify(end)}, expected ${JSON.stringify(ENDS[name])}`);
        await save(name, handle, end.state);
      }
      for (const [name, scenario] of selected(WEBHOOK_SCENARIOS, names)) {
        hooks.reset();
        const handle = await scenario(webhooks, env.client, hooks);
        const end: unknown = await handle.result();
        if (!isDeepStrictEqual(end, WEBHOOK_ENDS[name]))
          throw new Error(`${name} returned ${JSON.stringify(end)}, expected ${JSON.stringify(WEBHOOK_ENDS[name])}`);
        await save(name, handle, `${JSON.stringify(end)} after attempts ${JSON.stringify(hooks.attempts)}`);
      }
    });
  } finally {
    await env.teardown();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
