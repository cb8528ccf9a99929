import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { assignmentAllowance } from '../auth/quotas';
import { coverNextAttempt } from '../billing/gate';
import {
  type ReservedRow,
  type ReservingAgent,
  bestFirst,
  releaseReservation,
  reservationStep,
  reserveSome,
} from './reservations';
import { holding } from '../db/held-transaction';
import type { Transitions } from './transitions';
import type { RideAlong } from '../db/one-trip';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';
import {
  type Assignment,
  type Handing,
  type Outcome,
  handOut,
  outcomeOf,
  untilAllOrHeld,
  withdrawInBackground,
} from './hand-outs';

export interface ClaimingAgent extends ReservingAgent {
  registered_with_key_id: string | null;
  key_has_quotas?: boolean;
}

export interface ClaimOptions {
  /** How long a reservation keeps other pollers off the row; longer than an Update's call budget. */
  reservationSeconds: number;
  workflows: JobWorkflowClient;
  log: Logger;
}

/**
 * Takes the best claimable jobs for an agent, up to `limit`: highest priority, then oldest,
 * matching its labels (for a managed-pool agent: one job, across the workspaces of its region in
 * turn, see reservations.ts).
 *
 * The rows are first reserved for the agent (SKIP LOCKED, so pollers pass over each other), and
 * only then are the jobs' workflows asked, through their `assign` Updates, all at once. A
 * workspace's own agent with nothing to weigh reserves them in a transaction it holds while the
 * runs answer, one connection a batch (within the instance's budget of those: half its pool),
 * and its assignments commit with it; any other reserves in a statement of its own and holds no
 * connection meanwhile. A refusal (cancelled meanwhile) moves on to the next rows.
 *
 * Once the workflows have assigned the jobs, the read model's writes (one transaction, its commit
 * not waiting for the disk: see transitions.written) go before the answer, so whoever asks the
 * read model whether a node holds a job (heartbeat, log push, artifact upload) finds it. Should
 * the write fail, the reconciler repairs the rows from the workflows. An Update that fails
 * otherwise has its lease withdrawn; the error is thrown only when no job was taken. Once one job
 * is taken, the others' Updates are waited for only until `held` (its agent's loss clock is
 * running): one that answers later is written, then withdrawn, nobody being told of it.
 * `settled` is called once every Update it sent has its answer, the late ones too.
 */
export async function claimSome(
  db: Knex,
  transitions: Transitions,
  agent: ClaimingAgent,
  skip: string[],
  o: ClaimOptions,
  batch: Batch = { limit: 1 },
): Promise<Assignment[]> {
  const c: Claim = { db, transitions, agent, skip, o, batch, sent: [] };
  try {
    return await claimBatch(c);
  } finally {
    if (batch.settled) void Promise.allSettled(c.sent).then(batch.settled);
  }
}

/** One claim's parts: whose it is, what it skips, and the Updates it sent (their settling included). */
interface Claim {
  db: Knex;
  transitions: Transitions;
  agent: ClaimingAgent;
  skip: string[];
  o: ClaimOptions;
  batch: Batch;
  sent: Array<Promise<unknown>>;
}

async function claimBatch(c: Claim): Promise<Assignment[]> {
  for (;;) {
    const release = holdsItsReservation(c.agent) ? c.transitions.holds.take() : undefined;
    const round = release ? await heldRound(c).finally(release) : await stepwiseRound(c);
    if (round.reserved === 0) return [];
    if (round.taken.length > 0) return round.taken.map(({ assignment }) => assignment);
    if (round.failure !== undefined) throw round.failure;
  }
}

/**
 * Whether a claim may reserve its rows in a transaction it holds until their assignments commit
 * with it: one transaction a batch instead of two. Only for a workspace's own agent that no
 * reader of reservations weighs (free room and key quotas count them, and could not see these),
 * and while the instance may hold one more (transitions.holds).
 */
const holdsItsReservation = (agent: ClaimingAgent) => agent.pool === 'self' && !agent.key_has_quotas && !agent.free;

/** What one reservation came to: how many rows it reserved, the jobs taken, an Update's failure. */
interface Round {
  reserved: number;
  taken: Handing[];
  failure?: unknown;
}

/** The rows reserved in a statement of their own, then their assignments written in another transaction. */
async function stepwiseRound(c: Claim): Promise<Round> {
  const { db, transitions, agent, skip, o, batch } = c;
  const rows = await reserve(db, agent, skip, o.reservationSeconds, batch.limit);
  if (rows.length === 0) return { reserved: 0, taken: [] };
  const open: typeof rows = [];
  for (const row of rows) {
    // Every managed attempt runs inside its reservation: a later one the credit no longer
    // covers is not started, and the job ends billing.hard_cap.
    if (row.pool === 'managed' && Number(row.attempt) >= 2 && !(await coverNextAttempt(db, row.id))) {
      skip.push(row.id);
      await releaseReservation(db, row.id, agent.id);
      await o.workflows
        .stop(row.id, 'billing.hard_cap')
        .catch((err: unknown) =>
          o.log.warn({ err, jobId: row.id }, 'could not stop a job its credit no longer covers'),
        );
    } else open.push(row);
  }
  const r = sortOut(await askRuns(c, open), o);
  for (const row of r.refused) await passOver(c, row);
  if (r.taken.length > 0) await transitions.written(r.taken, batch.alongside?.());
  return { reserved: rows.length, taken: r.taken, failure: r.failure };
}

/**
 * The rows reserved in a transaction held while their runs are asked (one connection a batch),
 * committed with their assignments in one round trip. Refused rows are repaired only after the
 * commit: the repair writes rows this transaction holds locked.
 */
async function heldRound(c: Claim): Promise<Round> {
  const { db, transitions, agent, skip, o, batch } = c;
  const step = reservationStep(agent, skip, o.reservationSeconds, batch.limit);
  const { r, reserved } = await holding(db, step, async (found, tx) => {
    const rows = bestFirst(found as ReservedRow[]);
    if (rows.length === 0) return { r: undefined, reserved: 0 };
    const r = sortOut(await askRuns(c, rows), o);
    const writes = r.taken.length > 0 ? transitions.assignmentWrites(r.taken, batch.alongside?.()) : undefined;
    try {
      const results = await tx.commit(writes?.steps ?? [], writes?.riders);
      writes?.took(results);
    } catch (err) {
      // The runs decided: answered all the same, and the reconciler levels the rows behind them.
      o.log.warn(
        { err: String(err), jobIds: rows.map((row) => row.id) },
        'assignments answered, their read-model write failed; the reconciler repairs the rows',
      );
    }
    return { r, reserved: rows.length };
  });
  if (!r) return { reserved, taken: [] };
  for (const row of r.refused) await passOver(c, row);
  return { reserved, taken: r.taken, failure: r.failure };
}

/**
 * Asks the reserved rows' runs to assign them, all at once: their outcomes once all have one, or
 * once `held` resolves after the first job was taken. One still under way then is undefined, and
 * settled when it answers: written, then withdrawn, nobody being told of it; or passed over.
 */
async function askRuns(c: Claim, rows: ReservedRow[]): Promise<Array<[ReservedRow, Outcome | undefined]>> {
  const { transitions, o, sent } = c;
  const outcomes = rows.map((row) => outcomeOf(handOut(transitions, c.agent, row)));
  const now = await untilAllOrHeld(outcomes, c.batch.held);
  rows.forEach((row, i) => {
    if (now[i]) return;
    sent.push(
      outcomes[i].then(async (later) => {
        if ('handing' in later) {
          // Written as any assignment (its attempt recorded), then taken back.
          await transitions.written([later.handing]);
          withdrawInBackground(o.workflows, row.id, later.handing.assignment.leaseId, o.log);
        } else if (later.failed) withdrawInBackground(o.workflows, row.id, later.failed.leaseId, o.log);
        else await passOver(c, row);
      }),
    );
  });
  return rows.map((row, i) => [row, now[i]]);
}

/** The outcomes at hand: the jobs taken, the rows whose runs refused, the first failure. */
function sortOut(outcomes: Array<[ReservedRow, Outcome | undefined]>, o: ClaimOptions) {
  const taken: Handing[] = [];
  const refused: ReservedRow[] = [];
  let failure: unknown;
  for (const [row, outcome] of outcomes) {
    if (!outcome) continue;
    if ('handing' in outcome) taken.push(outcome.handing);
    else if (outcome.failed) {
      // The Update may still apply, to an agent that will never hear of it: withdraw the lease.
      // The reservation keeps the row from other pollers meanwhile.
      withdrawInBackground(o.workflows, row.id, outcome.failed.leaseId, o.log);
      failure ??= outcome.failed.cause;
    } else refused.push(row);
  }
  return { taken, refused, failure };
}

/** A row whose run refused it (cancelled meanwhile): repaired, skipped by this poll, and let go. */
async function passOver(c: Claim, row: ReservedRow): Promise<void> {
  await c.transitions.passOver(row.id, row.workspace_id);
  c.skip.push(row.id);
  await releaseReservation(c.db, row.id, c.agent.id).catch(() => undefined);
}

/** How a claim takes its jobs. */
export interface Batch {
  /** How many rows it reserves at most. */
  limit: number;
  /** Once a job is taken: how long the rest of the batch is waited for. */
  held?: () => Promise<unknown>;
  /** Called once every Update it sent has its answer. */
  settled?: () => void;
  /** What rides the trip that writes the assignments (the poll answer's stop list). */
  alongside?: () => RideAlong;
}

/**
 * Reserves claimable rows for the agent: under the key's lock, and one, when its key has quotas;
 * one for a node with a capacity, which each job taken changes (a managed-pool agent's statement
 * takes one anyway); else up to `limit`.
 */
async function reserve(db: Knex, agent: ClaimingAgent, skip: string[], seconds: number, limit: number) {
  if (!agent.key_has_quotas) return reserveSome(db, agent, skip, seconds, { limit: agent.free ? 1 : limit });
  return db.transaction(async (trx) => {
    // The quotas of the key the node registered with bound what all its nodes hold together.
    const allowance = await assignmentAllowance(trx, agent.registered_with_key_id);
    if (allowance?.blocked) return [];
    return reserveSome(trx, agent, skip, seconds, { types: allowance?.types, limit: 1 });
  });
}
