import { JOB_COLUMN_NAMES, artifactsOf } from './record';
import { newId } from '../shared/ids';
import { TERMINAL_STATES } from '../../workflows/definitions';

// The outbox of job events (CONTRACT §7): SQL for the CTEs of the statements that make a job
// visible and that write its transitions, so an event exists exactly when its change does. An
// event is written only while the workspace has a live endpoint: a workspace without webhooks
// pays one index probe per transition.

export const EVENT_TYPES = ['job.created', 'job.transitioned', 'job.terminal'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

// The job as of the event, in the columns jobFromRow reads; its env is sealed (only its names show).
const EVENT_JOB_COLUMNS = JOB_COLUMN_NAMES;
const jobJson = (alias: string) =>
  `jsonb_build_object(${EVENT_JOB_COLUMNS.map((c) => `'${c}', ${alias}.${c}`).join(', ')}, 'artifacts', ${artifactsOf(`${alias}.id`)})`;
const hasLiveEndpoint = (alias: string) =>
  `EXISTS (SELECT 1 FROM webhooks w WHERE w.workspace_id = ${alias}.workspace_id AND w.enabled AND w.deleted_at IS NULL)`;
const TERMINAL = TERMINAL_STATES.map((s) => `'${s}'`).join(', ');

/** `job.created` for each row of `source` (rows of jobs); one placeholder: the event ID. */
export const createdEventInsert = (source: string) => `
  INSERT INTO webhook_events (id, workspace_id, job_id, type, data)
  SELECT ?::text, s.workspace_id, s.id, 'job.created', jsonb_build_object('job', ${jobJson('s')})
  FROM ${source} s WHERE ${hasLiveEndpoint('s')}`;

/**
 * `job.transitioned` for each row of `source` (rows of jobs with `prev_state`) whose state
 * changed, then `job.terminal` when it changed into a terminal state; two placeholders: their IDs.
 */
export const transitionEventsInsert = (source: string) => `
  INSERT INTO webhook_events (id, workspace_id, job_id, type, data)
  SELECT e.id, s.workspace_id, s.id, e.type,
         CASE WHEN e.ord = 1 THEN jsonb_build_object('job', ${jobJson('s')}, 'from', s.prev_state, 'to', s.state)
              ELSE jsonb_build_object('job', ${jobJson('s')}) END
  FROM ${source} s CROSS JOIN (VALUES (?::text, 'job.transitioned', 1), (?::text, 'job.terminal', 2)) AS e (id, type, ord)
  WHERE s.prev_state IS DISTINCT FROM s.state
    AND (e.ord = 1 OR s.state IN (${TERMINAL}))
    AND ${hasLiveEndpoint('s')}
  ORDER BY e.ord`;

export const newEventId = () => newId('evt');
