import type { Knex } from 'knex';
import { notifyQueuedSql } from '../db/channels';
import type { Step } from '../db/one-trip';
import { preparedNamed } from '../db/prepared';
import { JOB_COLUMN_NAMES } from './record';

// A reservation keeps other pollers off a queued row while its assign Update runs: committed at
// once, or (a plain node's batch, src/jobs/dispatch.ts) in a transaction held until the
// assignments commit with it. It is not a transition: the job stays QUEUED until the workflow
// assigns it, and an expired reservation is simply free again.

/** Who reserves: a workspace's own agent (`pool: self`) or a managed-pool agent of a region. */
export interface ReservingAgent {
  id: string;
  workspace_id: string;
  labels: Record<string, string>;
  pool: string;
  region: string | null;
  /** What the agent has free now, when it registered a capacity: only jobs that fit it are taken. */
  free?: { cpu: number; memoryMb: number; gpu: number };
}

/** A row any poll could take now (`j` is the job): queued, started, available, not reserved. */
const OPEN = `j.state = 'QUEUED' AND j.workflow_started AND j.available_at <= now()
  AND (j.claimed_until IS NULL OR j.claimed_until < now())`;

/** What every claimable row must be, beside its queue: open, and the agent's labels, skips and types. */
const CLAIMABLE = `${OPEN} AND j.selector <@ :labels::jsonb
  AND NOT (j.id = ANY(:skip::text[])) AND (:types::text[] IS NULL OR j.type = ANY(:types::text[]))
  AND (:free::jsonb IS NULL OR (
    coalesce((j.resources->>'cpu')::numeric, 1) <= (:free::jsonb->>'cpu')::numeric
    AND coalesce((j.resources->>'memoryMb')::numeric, 1024) <= (:free::jsonb->>'memoryMb')::numeric
    AND coalesce((j.resources->>'gpu')::numeric, 0) <= (:free::jsonb->>'gpu')::numeric))`;

/**
 * The reservation itself; a poll that began before its agent was removed takes nothing after. Its
 * commit does not wait for the WAL's flush (`synchronous_commit` off for its transaction, set as
 * it returns the row): a reservation lost in a crash is a claimable row again, and the run refuses
 * to assign a job twice.
 */
const RESERVE = `UPDATE jobs SET claimed_by = :agent, claimed_until = now() + make_interval(secs => :seconds)
  WHERE id = ANY (ARRAY(SELECT id FROM pick))
    AND NOT EXISTS (SELECT 1 FROM agents WHERE id = :agent AND deregistered_at IS NOT NULL)
  RETURNING ${JOB_COLUMN_NAMES.join(', ')}, set_config('synchronous_commit', 'off', true) AS relaxed`;

/**
 * A workspace's agent: its workspace's self jobs, the highest priority first, then the oldest, up
 * to `:limit` of them in one statement (a claim in batches, see dispatch.ts).
 */
const SELF = `WITH pick AS (
    SELECT j.id FROM jobs j
    WHERE j.workspace_id = :workspace AND j.pool = 'self' AND ${CLAIMABLE}
    ORDER BY j.priority DESC, j.created_at, j.id
    FOR NO KEY UPDATE SKIP LOCKED
    LIMIT :limit)
  ${RESERVE}`;

/**
 * A managed-pool agent: the managed jobs of its region, one workspace's turn at a time. The
 * workspaces with queued jobs there are found by skipping through the region's index (one probe
 * each, however many jobs each holds), and taken in turn: the one served least recently first
 * (never served: before all). Within a workspace, as for its own agents: priority, then age.
 *
 * `turns` is materialized in that order and the lateral pick runs once per workspace only until
 * one yields a row (LIMIT 1 over a nested loop), so one row is locked and one index range read
 * per workspace tried. The hand-out stamps the workspace's turn in the same statement.
 */
const MANAGED = `WITH RECURSIVE queued(workspace_id) AS (
    SELECT min(workspace_id) FROM jobs
    WHERE region = :region AND state = 'QUEUED' AND workflow_started AND pool = 'managed'
    UNION ALL
    SELECT (SELECT min(j.workspace_id) FROM jobs j
            WHERE j.region = :region AND j.state = 'QUEUED' AND j.workflow_started AND j.pool = 'managed'
              AND j.workspace_id > q.workspace_id)
    FROM queued q WHERE q.workspace_id IS NOT NULL
  ), turns AS MATERIALIZED (
    SELECT q.workspace_id FROM queued q
    LEFT JOIN managed_pool_turns t ON t.region = :region AND t.workspace_id = q.workspace_id
    WHERE q.workspace_id IS NOT NULL
    ORDER BY t.served_at NULLS FIRST, q.workspace_id
  ), pick AS (
    SELECT c.id, c.workspace_id FROM turns w
    CROSS JOIN LATERAL (
      SELECT j.id, j.workspace_id FROM jobs j
      WHERE j.region = :region AND j.workspace_id = w.workspace_id AND j.pool = 'managed' AND ${CLAIMABLE}
      ORDER BY j.priority DESC, j.created_at, j.id
      FOR NO KEY UPDATE SKIP LOCKED
      LIMIT 1) c
    LIMIT 1
  ), reserved AS (${RESERVE}
  ), turn AS (
    INSERT INTO managed_pool_turns (region, workspace_id, served_at)
    SELECT :region, workspace_id, clock_timestamp() FROM reserved
    ON CONFLICT (region, workspace_id) DO UPDATE SET served_at = excluded.served_at
  )
  SELECT ${JOB_COLUMN_NAMES.join(', ')}, relaxed FROM reserved`;

export type ReservedRow = { id: string; workspace_id: string } & Record<string, unknown>;

/**
 * Reserves the best claimable rows for the agent, best first, in one statement: a workspace's
 * agent takes up to `limit` of its workspace's `self` jobs; a managed-pool agent one `managed` job
 * of its region, its turn being one workspace's (fair across workspaces). Labels must match the
 * job's selector.
 */
export async function reserveSome(
  db: Knex | Knex.Transaction,
  agent: ReservingAgent,
  skip: string[],
  seconds: number,
  o: { types?: string[]; limit: number },
): Promise<ReservedRow[]> {
  const values = reservationValues(agent, skip, seconds, o);
  return bestFirst((await (agent.pool === 'managed' ? reserveManaged : reserveSelf)(db, values)) as ReservedRow[]);
}

/**
 * reserveSome's statement for a workspace's agent, as the step that opens a transaction held
 * while the runs are asked (src/jobs/dispatch.ts): its rows stay locked, and their reservation
 * unseen by others, until the assignments commit with it. Only for an agent no reader of its
 * reservations weighs: no capacity to fit (free room counts them), no key quotas, not managed.
 */
export function reservationStep(agent: ReservingAgent, skip: string[], seconds: number, limit: number): Step {
  return reserveSelf.step(reservationValues(agent, skip, seconds, { limit }));
}

/** The reserved rows, best first, as the pick chose them (RETURNING follows no order). */
export function bestFirst(rows: ReservedRow[]): ReservedRow[] {
  if (rows.length > 1) rows.sort(best);
  return rows;
}

function reservationValues(
  agent: ReservingAgent,
  skip: string[],
  seconds: number,
  o: { types?: string[]; limit: number },
) {
  return {
    agent: agent.id,
    seconds,
    labels: JSON.stringify(agent.labels),
    skip,
    types: o.types ?? null,
    free: agent.free ? JSON.stringify(agent.free) : null,
    workspace: agent.workspace_id,
    region: agent.region,
    limit: o.limit,
  };
}

const best = (a: Record<string, unknown>, b: Record<string, unknown>) =>
  Number(b.priority) - Number(a.priority) ||
  new Date(a.created_at as string).getTime() - new Date(b.created_at as string).getTime() ||
  (a.id as string).localeCompare(b.id as string);

const reserveSelf = preparedNamed('jobs_reserve_self', SELF);
const reserveManaged = preparedNamed('jobs_reserve_managed', MANAGED);

/** Whether a job is still there for a poll to claim: queued, available and not reserved. */
export async function isClaimable(db: Knex, jobId: string): Promise<boolean> {
  const { rows } = await db.raw(`SELECT 1 FROM jobs j WHERE j.id = ? AND ${OPEN}`, [jobId]);
  return rows.length > 0;
}

/** Frees a row the workflow refused to assign (cancelled meanwhile). */
export async function releaseReservation(db: Knex, jobId: string, agentId: string): Promise<void> {
  await db('jobs').where({ id: jobId, claimed_by: agentId }).update({ claimed_by: null, claimed_until: null });
}

/**
 * Frees a reservation that ran out (its claim crashed, or its Update never reached the run) and,
 * when that leaves the row claimable, notifies its queue: a renewed poll of an idle node skips its
 * claim until its queue is notified (src/agents/empty-claims.ts), so a row freed silently would
 * wait for the skip's bound.
 */
export async function releaseExpired(db: Knex, jobId: string): Promise<void> {
  await db.raw(
    `WITH u AS (
       UPDATE jobs SET claimed_by = NULL, claimed_until = NULL WHERE id = ? AND claimed_until < now()
       RETURNING id, pool, region, workspace_id, selector, state, workflow_started, available_at
     ), n AS (
       SELECT ${notifyQueuedSql('u')} FROM u WHERE u.state = 'QUEUED' AND u.workflow_started AND u.available_at <= now()
     )
     SELECT count(*) FROM n`,
    [jobId],
  );
}
