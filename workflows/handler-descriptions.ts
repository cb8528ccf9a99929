// What the Temporal UI shows beside each of the job run's handlers (its Queries, Signals and
// Updates tabs read them from the run's metadata). An operator acts with the signals; the Updates
// belong to the service's API, whose caller writes the job from the answer.

export const HANDLER_DESCRIPTIONS = {
  state: 'The job as this run knows it: state, attempt, agent, lease and the attempts ended. Input: none.',
  cancelSignal:
    'Cancel the job, as the API\'s cancel does: a queued job ends CANCELLED at once; a running one becomes CANCELLING, its agent is told to stop, and it ends when the agent reports or the grace runs out. failureReason "cancelled in Temporal", audited as system/temporal. Input: {} or {"reason": "why"} (kept in this history).',
  cancelUpdate:
    "The API's cancel; its caller writes the job from the answer. From the UI, send the `cancel` signal instead.",
  assign: "The API hands the job to an agent's poll (input: {leaseId, agentId}). Not for operators.",
  result: "An agent's result for its lease (input: {leaseId, agentId, exitCode, runtimeMs}). Not for operators.",
  recheckAgent: "Re-read the agent's drain deadline now. Input: none. Harmless.",
  stop: 'The service stops the job on its own account (input: {"reason": "billing.hard_cap"}). Not for operators.',
  withdrawLease: 'The API withdraws an assignment that never reached its agent (input: {leaseId}). Not for operators.',
} as const;
