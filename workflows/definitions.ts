import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AssignInput, AttemptEnd, JobSnapshot, JobSpec, ResultInput, StopReason, Transition } from './job-model';

// Messages of the job workflow, defined once and imported by the workflow, the API and the tests.
// The types and helpers they carry live in job-model.ts, free of Temporal, and are re-exported here.
export * from './job-model';

// Each answers with the transition it made, which the caller writes to the read model.
export const assignUpdate = defineUpdate<Transition, [AssignInput]>('assign');
export const resultUpdate = defineUpdate<Transition, [ResultInput]>('result');
export const cancelUpdate = defineUpdate<Transition, []>('cancel');
/** The agent's drain deadline changed: re-read it now rather than at the next liveness check. */
export const recheckAgentSignal = defineSignal('recheckAgent');
/** An operator's cancel sent from the Temporal UI (input `{}`, or `{"reason": "…"}` kept in the run's history). */
export const cancelSignal = defineSignal<[{ reason?: string }?]>('cancel');
/** The service stops the job on its own account (`billing.hard_cap`): a cancel with that failureReason. */
export const stopSignal = defineSignal<[{ reason: StopReason }]>('stop');
/**
 * An assignment whose Update failed on the caller's side (a timeout, an outage) may still apply
 * later, to an agent that never heard of it: the caller withdraws the lease, which requeues the
 * job without counting an agent loss, or refuses the assignment should it arrive afterwards.
 */
export const withdrawLeaseSignal = defineSignal<[{ leaseId: string }]>('withdrawLease');
export const stateQuery = defineQuery<JobSnapshot & { spec: JobSpec; ends?: AttemptEnd[] }>('state');
