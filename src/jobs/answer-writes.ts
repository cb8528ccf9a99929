import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { auditInsertFromPending } from '../audit/log';
import { notifyQueuedSql, queuedChannelSql, queuedPayloadSql } from '../db/channels';
import type { Notifier } from '../db/notifier';
import { type RideAlong, type Rows, type Step, inOneTrip } from '../db/one-trip';
import { positional, prepared } from '../db/prepared';
import type { TripRiders } from '../db/trip-riders';
import type { Transition } from '../../workflows/definitions';
import { createdEventInsert, newEventId } from './outbox';
import { projectionWrite } from './projection';

// The writes an answer waits for: a submit's acknowledgement (the row made visible) and a claim's
// assignments, as statements a caller sends in one trip or commits in a transaction it holds
// (src/db/held-transaction.ts).

const AUDIT_SUBMIT = auditInsertFromPending('started', 'job.submit', 'job');
const CREATED_EVENT = createdEventInsert('started');
/**
 * The polls able to take a queued job are woken by its NOTIFY when the statement's placeholder
 * for it is true (`n`, which must be read to run); else the caller offers it in memory, with the
 * channel and payload the statement returns (src/db/notifier.ts, `alone`).
 */
const OFFER = {
  cte: `, n AS (SELECT ${notifyQueuedSql('started')} FROM started WHERE ?::boolean)`,
  columns: `, (SELECT count(*) FROM n) AS notified, (SELECT ${queuedChannelSql('started')} FROM started) AS channel,
            (SELECT ${queuedPayloadSql('started')} FROM started) AS payload`,
};
/** Makes a submitted job visible; `offered`: the polls able to take it are to be woken (OFFER). */
const createStatementOf = (name: string, offered: boolean) =>
  prepared<{ marked: string; present: boolean }>(
    name,
    positional(`WITH started AS (UPDATE jobs SET workflow_started = true WHERE id = ? AND NOT workflow_started
                          RETURNING *, id AS target_id, submitted_by AS pending),
         audited AS (${AUDIT_SUBMIT}),
         created AS (${CREATED_EVENT})${offered ? OFFER.cte : ''}
         SELECT (SELECT count(*) FROM started) AS marked, EXISTS (SELECT 1 FROM jobs WHERE id = ?) AS present
                ${offered ? OFFER.columns : ''}`),
  );
const createStatement = createStatementOf('job_create', true);
/** For a job handed to a waiting poll with its start: no other poll is to be woken for it. */
const createHandedStatement = createStatementOf('job_create_handed', false);

/** A job handed to a waiting poll with its run's start: its assignment, written with its acknowledgement. */
export interface Handed {
  workspaceId: string;
  assigned: Transition;
  alongside?: RideAlong;
}

const createdOutcome = (rows: Rows): 'marked' | 'already' | 'gone' =>
  Number(rows[0].marked) > 0 ? 'marked' : rows[0].present ? 'already' : 'gone';

/** Makes the rest of its transaction's commit wait for the WAL's flush, whatever set it off before. */
const waitForTheDisk = prepared('commit_waits_for_disk', `SELECT set_config('synchronous_commit', 'on', true)`);

/** The statements of the writes an answer waits for, and those writes sent alone. */
export function createAnswerWrites({
  db,
  log,
  riders,
  notifier,
}: {
  db: Knex;
  log: Logger;
  riders?: TripRiders;
  /** This instance's listener: while it is the only one, a queued job is offered in memory, not NOTIFYed. */
  notifier?: Pick<Notifier, 'alone' | 'offer'>;
}) {
  /**
   * The statements that write assignments the runs have made, one statement each, and what the
   * poll's answer reads (`alongside`) after them; `took` hands each its rows. Their commit does
   * not wait for the WAL's flush (see docs/architecture.md, what waits for the disk), so the
   * agent's next call finds its lease in the row.
   */
  function assignmentWrites(
    assigned: Array<{ workspaceId: string; t: Transition }>,
    alongside?: RideAlong,
  ): { steps: Step[]; riders?: TripRiders; took(results: Rows[]): void } {
    // Rows locked in the order of their IDs: two batches never wait on each other in a cycle.
    const sorted = [...assigned].sort((a, b) => (a.t.snapshot.jobId < b.t.snapshot.jobId ? -1 : 1));
    // An attempt end (none is expected here) carries a usage entry: that waits for the disk.
    const durable = sorted.some(({ t }) => t.ends.length > 0);
    const writes = sorted.map(({ workspaceId, t }) =>
      projectionWrite({ snapshot: t.snapshot, workspaceId, attemptEnds: t.ends }, { durable }),
    );
    // Its transaction may have turned the wait off before (a claim's reservation, src/jobs/dispatch.ts).
    const steps = [...(durable ? [{ statement: waitForTheDisk, values: [] }] : []), ...writes.flatMap((w) => w.steps)];
    return {
      steps: alongside ? [...steps, alongside.step] : steps,
      riders,
      took(results) {
        let at = durable ? 1 : 0;
        for (const w of writes) {
          w.written(results.slice(at, at + w.steps.length));
          at += w.steps.length;
        }
        alongside?.took(results[at]);
      },
    };
  }

  /**
   * Writes assignments the runs have made, then lets them be answered: all in one transaction and
   * round trip (a claim in batches hands out several). A write that fails is answered all the
   * same: the runs decided, and the reconciler levels the rows behind them (`alongside` then has
   * nothing).
   */
  async function written(
    assigned: Array<{ workspaceId: string; t: Transition }>,
    alongside?: RideAlong,
  ): Promise<void> {
    const w = assignmentWrites(assigned, alongside);
    try {
      w.took(await inOneTrip(db, w.steps, riders));
    } catch (err) {
      log.warn(
        { err: String(err), jobIds: assigned.map(({ t }) => t.snapshot.jobId) },
        'transition answered, its read-model write failed; the reconciler repairs the row',
      );
    }
  }

  /** The statements that make a job visible (`create`), and what their rows say. */
  function acknowledgement(
    jobId: string,
    o: { handed?: Handed } = {},
  ): { steps: Step[]; riders?: TripRiders; took(results: Rows[]): 'marked' | 'already' | 'gone' } {
    if (!o.handed) {
      // Decided as the commit is sent: an instance that comes up later catches up (notifier.ts).
      const inMemory = notifier?.alone === true;
      return {
        steps: [{ statement: createStatement, values: [jobId, newEventId(), !inMemory, jobId] }],
        riders,
        took: ([rows]) => {
          const { channel, payload } = rows[0];
          // Another instance showed up since the commit was sent: it is NOTIFYed after all.
          if (
            inMemory &&
            typeof channel === 'string' &&
            typeof payload === 'string' &&
            !notifier!.offer(channel, payload)
          )
            db.raw('SELECT pg_notify(?, ?)', [channel, payload]).catch((err: unknown) =>
              log.warn(
                { err: String(err), jobId },
                'could not NOTIFY a queued job; polls take it when their wait ends',
              ),
            );
          return createdOutcome(rows);
        },
      };
    }
    const values = [jobId, newEventId(), jobId];
    // A job handed to a waiting poll at its start: the assignment its run made is written in the
    // same transaction and round trip, before the poll is answered. The acknowledgement waits for
    // the disk, so that write does too.
    const { workspaceId, assigned: t, alongside } = o.handed;
    const write = projectionWrite({ snapshot: t.snapshot, workspaceId, attemptEnds: t.ends }, { durable: true });
    return {
      steps: [{ statement: createHandedStatement, values }, ...write.steps, ...(alongside ? [alongside.step] : [])],
      riders,
      took: ([created, ...rest]) => {
        write.written(rest.slice(0, write.steps.length));
        if (alongside) alongside.took(rest[write.steps.length]);
        return createdOutcome(created);
      },
    };
  }

  return { assignmentWrites, written, acknowledgement };
}
