import type { Knex } from 'knex';
import { NOTIFY, notifyQueuedSql } from '../db/channels';
import { newEventId, transitionEventsInsert } from './outbox';
import { JOB_COLUMN_NAMES, artifactsOf } from './record';
import { positional, prepared } from '../db/prepared';
import { attemptEndEntries, reservationReleaseSql } from '../billing/ledger';
import { type Step, inOneTrip } from '../db/one-trip';
import type { TripRiders } from '../db/trip-riders';
import { isTerminal } from '../../workflows/job-model';
import type { AttemptEnd, JobSnapshot, ProjectJobInput } from '../../workflows/definitions';
import { attemptsEnded, jobsFinished, jobsRequeued } from '../metrics/registry';

/**
 * An attempt's end: the run's moment of decision, not this write's, so a late projection (a crash
 * between the two, repaired later) bills no delay: what ticks counted past it, the end's entry
 * takes back. Never before its assignment (another clock stamped that); the write's own time for
 * an end from a run that kept no moment.
 */
const ENDED_AT = `coalesce(t.ended_at, CASE WHEN e.at IS NULL THEN now() ELSE greatest(e.at, t.assigned_at) END)`;
/**
 * Writes a workflow snapshot into the read model. Idempotent and order-safe: a snapshot older
 * than the row's version changes nothing, attempt ends only fill what is still empty. Both the
 * workflow's projection activity and the API's hot path (assignment, result) call it. Returns the
 * row as written, or undefined when the row already had this version or a newer one.
 *
 * The row, a new attempt, the attempts it ends, the webhook events of a change of state (the
 * outbox), a managed job's credit reservation let go at its end, and the NOTIFYs go in one
 * statement: without attempt ends that is the whole write. An end adds its usage entries in
 * statements of their own after it (they must read the ledger after the attempt's row is taken),
 * all of them one transaction sent in one round trip (src/db/one-trip.ts). `durable: false`
 * lets that transaction commit without waiting for the WAL's flush (`synchronous_commit` off for
 * it alone, set in the statement itself: no round trip more).
 */
export async function applyProjection(
  db: Knex | Knex.Transaction,
  input: ProjectJobInput,
  o: { durable: boolean; riders?: TripRiders } = { durable: true },
) {
  const write = projectionWrite(input, o);
  return write.written(await inOneTrip(db, write.steps, o.riders));
}

/**
 * applyProjection's statements, for a caller that sends others before them in the same trip
 * (transitions.create), and what it makes of their rows: `written` takes the rows of these
 * statements alone.
 */
export function projectionWrite(
  { snapshot: s, attemptEnds }: ProjectJobInput,
  { durable }: { durable: boolean },
): { steps: Step[]; written(results: Array<Array<Record<string, unknown>>>): Record<string, unknown> | undefined } {
  const columns = Object.entries(snapshotColumns(s));
  const attempt = s.leaseId && s.agentId;
  const wakesAgents = s.state === 'QUEUED' && Date.parse(s.availableAt) <= Date.now();
  // Only an end is listened for (a followed log ends with its job, src/logs/feeds.ts), and only a
  // followed job's (src/jobs/log-follows.ts): each NOTIFY takes PostgreSQL's global notify lock at
  // commit and wakes every LISTEN connection, which reads the queue in a transaction of its own.
  const wakesFollowers = isTerminal(s.state);
  const values = [
    durable,
    s.jobId,
    s.version,
    ...columns.map(([, value]) => value),
    s.version,
    newEventId(),
    newEventId(),
    // Each end only fills what is still empty; ended in this statement, after the job's row.
    JSON.stringify(
      attemptEnds.map((end) => ({
        lease_id: end.leaseId,
        at: end.at ?? null,
        reason: end.reason,
        kill: end.kill,
        ...(end.result && { result: end.result }),
      })),
    ),
    s.leaseId,
    s.jobId,
    s.attempt,
    s.agentId,
    s.startedAt,
    Boolean(attempt),
    NOTIFY.jobState,
    wakesFollowers,
    wakesAgents,
    // A job that ended lets its credit reservation go; a late copy of an old run's end writes no
    // row, and changes nothing.
    isTerminal(s.state),
  ];
  // Metering attaches here, where every attempt ends (src/billing/ledger.ts).
  const meters = attemptEnds.flatMap((end) => attemptEndEntries(end.leaseId, Boolean(end.result?.usage)));
  return {
    steps: [{ statement: projectionStatement, values }, ...meters],
    written: ([[row]]) => {
      const opened = new Set((row?.opened_ends as string[] | undefined) ?? []);
      const ended = attemptEnds.filter((end) => opened.has(end.leaseId));
      const written = row?.id ? row : undefined;
      countTransition(written?.prev_state as string | undefined, s, ended);
      return written;
    },
  };
}

/** The read-model columns a workflow snapshot sets. */
export function snapshotColumns(s: JobSnapshot) {
  return {
    state: s.state,
    attempt: s.attempt,
    lease_id: s.leaseId,
    agent_id: s.agentId,
    started_at: s.startedAt,
    finished_at: s.finishedAt,
    exit_code: s.exitCode,
    runtime_ms: s.runtimeMs,
    failure_reason: s.failureReason,
    error: s.error,
    available_at: s.availableAt,
    version: s.version,
    workflow_started: true,
  };
}

// A SELECT in a CTE runs only when referenced: the NOTIFYs are counted per updated row, so they
// fire exactly when the row changed, and are delivered on commit. An attempt first written by a
// snapshot that also ends it (its hand-out's write came late, or never: the API died after the
// Update, and the run timed the attempt out) is inserted ended, since `ended` cannot see a row
// the same statement inserts. An older snapshot than the row's inserts no attempt: the run has
// moved past it, and may have ended that attempt in a write that found no row to end, so it would
// stay open, held by its agent and billed by every meter tick.
const projectionStatement = prepared(
  'job_projection',
  positional(`WITH c AS (SELECT set_config('synchronous_commit', 'off', true) WHERE NOT ?::boolean
     ), p AS (
       SELECT id, state AS prev_state FROM jobs WHERE id = ? AND version < ? FOR NO KEY UPDATE
     ), u AS (
       UPDATE jobs SET ${Object.keys(snapshotColumns({} as JobSnapshot))
         .map((name) => `${name} = ?`)
         .join(', ')}, claimed_by = NULL, claimed_until = NULL
       FROM p WHERE jobs.id = p.id AND jobs.version < ?
       RETURNING jobs.*, p.prev_state
     ), ev AS (${transitionEventsInsert('u')}
     ), e AS (
       SELECT * FROM jsonb_to_recordset(?::jsonb) AS e (lease_id text, at timestamptz, reason text, kill boolean, result jsonb)
     ), a AS (
       INSERT INTO job_attempts (lease_id, job_id, attempt, agent_id, assigned_at, ended_at, end_reason, kill_requested, result)
       SELECT v.lease_id, v.job_id, v.attempt, v.agent_id, v.assigned_at,
              CASE WHEN e.lease_id IS NULL THEN NULL WHEN e.at IS NULL THEN now() ELSE greatest(e.at, v.assigned_at) END,
              e.reason, coalesce(e.kill, false), e.result
         FROM (SELECT ?::text AS lease_id, ?::text AS job_id, ?::int AS attempt, ?::text AS agent_id,
                      ?::timestamptz AS assigned_at WHERE ?::boolean AND EXISTS (SELECT 1 FROM u)) v
         LEFT JOIN e ON e.lease_id = v.lease_id
       ON CONFLICT (lease_id) DO NOTHING
       RETURNING lease_id, ended_at IS NOT NULL AS born_ended
     ), n AS (
       SELECT pg_notify(?, u.id) FROM u WHERE ?::boolean AND u.log_followed
       UNION ALL
       SELECT ${notifyQueuedSql('u')} FROM u WHERE ?::boolean
     ), released AS (
       ${reservationReleaseSql('u', '?::boolean')}
     ), before AS (
       SELECT lease_id, ended_at IS NULL AS was_open FROM job_attempts WHERE lease_id IN (SELECT lease_id FROM e)
     ), ended AS (
       UPDATE job_attempts t SET ended_at = ${ENDED_AT}, end_reason = coalesce(t.end_reason, e.reason),
              kill_requested = t.kill_requested OR e.kill, result = coalesce(t.result, e.result)
         FROM e JOIN before b ON b.lease_id = e.lease_id WHERE t.lease_id = e.lease_id
       RETURNING t.lease_id, b.was_open
     )
     SELECT ${JOB_COLUMN_NAMES.map((c) => `u.${c}`).join(', ')}, u.prev_state, ${artifactsOf('u.id')} AS artifacts,
            (SELECT count(*) FROM n) AS notified, (SELECT count(*) FROM c) AS relaxed,
            (SELECT coalesce(jsonb_agg(lease_id), '[]')
               FROM (SELECT lease_id FROM ended WHERE was_open UNION ALL SELECT lease_id FROM a WHERE born_ended) o
            ) AS opened_ends
     FROM (SELECT 1) AS one LEFT JOIN u ON true`),
);

/**
 * The counters of what a write changed: `prev` is the row's state before it, undefined when the
 * row was not written (a repeated or older snapshot), which counts nothing.
 */
function countTransition(prev: string | undefined, s: JobSnapshot, ends: AttemptEnd[]) {
  if (prev !== undefined && isTerminal(s.state) && !isTerminal(prev as JobSnapshot['state']))
    jobsFinished.inc({ state: s.state });
  if (prev !== undefined && s.state === 'QUEUED' && prev !== 'QUEUED' && s.attempt > 1) jobsRequeued.inc();
  for (const end of ends) attemptsEnded.inc({ reason: end.reason });
}
