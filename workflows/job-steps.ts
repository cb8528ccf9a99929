import type { JobSnapshot, ProjectJobInput, REFUSAL, Transition } from './job-model';

// What JobMachine (job-machine.ts) answers the workflow: refusals, moves and the run's next step,
// as data for job.ts to carry out.

/** A refused Update, as data: the workflow throws it as a non-retryable ApplicationFailure. */
export interface Refusal {
  type: (typeof REFUSAL)[keyof typeof REFUSAL];
  message: string;
}

/** One transition, for the workflow to show (search attributes, the run's details in the UI). */
export interface Move {
  from: JobSnapshot;
  to: JobSnapshot;
}

/** What an Update did: the answer its caller writes to the read model, and the move, if it made one. */
export interface Answered {
  answer: Transition;
  move: Move | null;
}

/** What the run does next; `next(now)` asks again once it is done. */
export type Step =
  /** The read model is behind: write this, then report it with `projected`. */
  | { kind: 'project'; write: ProjectJobInput }
  /** The job moved on its own (a timeout, a loss, the end of a grace...): show it. */
  | { kind: 'moved'; move: Move }
  /** Ask after the attempt's agent (the `checkAttempt` activity) and hand the answer to `checked`. */
  | { kind: 'check'; input: { leaseId: string; lostAfterMs: number } }
  /** Queued and claimable: wait for the job to change. */
  | { kind: 'idle' }
  /** Queued, backing off: wait for a change or until `until`; a wait that ends quietly is `backoffOver`. */
  | { kind: 'backoff'; until: number }
  /** Wait for a change (or a recheck) or until `until`. */
  | { kind: 'wait'; until: number }
  /** Terminal and written: the run ends with `final()`. */
  | { kind: 'done' };

/** How the run closes: a failed or timed-out job closes it as failed, so the UI's status tells the truth. */
export interface RunEnd {
  transition: Transition;
  failure: { type: string; message: string } | null;
}
