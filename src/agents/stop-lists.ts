import DataLoader from 'dataloader';
import type { Knex } from 'knex';
import type { RideAlong } from '../db/one-trip';
import { prepared } from '../db/prepared';

// What a poll's answer tells its agent to stop: jobs whose ended attempt on the node asked for a
// kill and whose process the agent may still run. Agents stop jobs by ID, so a job back on the
// node as a newer attempt (lost, requeued, handed to it again) is left out: it must go on running.
// An idle fleet's polls end empty by the hundred a second; their reads share a statement per
// window. A poll that hands out jobs reads at once: its agent is waiting for them. A poll handed
// its job by a submit has its list read in the trip that writes the hand-off (no transaction of
// its own).

const WINDOW_MS = 20;
const BATCH_MAX = 1000;

const STOPPED = `a.kill_requested AND a.result IS NULL AND a.ended_at > now() - interval '10 minutes'
    AND NOT EXISTS (SELECT 1 FROM job_attempts b WHERE b.job_id = a.job_id AND b.agent_id = a.agent_id AND b.ended_at IS NULL)`;

const STOPS = `SELECT a.agent_id, array_agg(DISTINCT a.job_id) AS jobs
  FROM job_attempts a WHERE a.agent_id = ANY(?::text[]) AND ${STOPPED}
  GROUP BY a.agent_id`;

/** One node's: prepared, as it runs for every poll that hands out jobs. */
const nodeStops = prepared<{ jobs: string[] | null }>(
  'node_stops',
  `SELECT array_agg(DISTINCT a.job_id) AS jobs FROM job_attempts a WHERE a.agent_id = $1 AND ${STOPPED}`,
);

export interface StopLists {
  /** The jobs the node is to stop, leaving out the ones this poll hands it. */
  of(nodeId: string, handed: string[]): Promise<string[]>;
  /** The node's list read in another write's trip (src/db/one-trip.ts); `took` gets it. */
  alongside(nodeId: string, took: (jobs: string[]) => void): RideAlong;
}

export function stopLists(db: Knex): StopLists {
  const read = async (nodeIds: readonly string[]) => {
    const { rows } = await db.raw(STOPS, [[...nodeIds]]);
    const byNode = new Map((rows as Array<{ agent_id: string; jobs: string[] }>).map((r) => [r.agent_id, r.jobs]));
    return nodeIds.map((id) => byNode.get(id) ?? []);
  };
  const batched = new DataLoader<string, string[]>(read, {
    cache: false,
    maxBatchSize: BATCH_MAX,
    batchScheduleFn: (run) => setTimeout(run, WINDOW_MS),
  });
  return {
    async of(nodeId, handed) {
      const jobs = handed.length === 0 ? await batched.load(nodeId) : ((await nodeStops(db, [nodeId]))[0]?.jobs ?? []);
      return jobs.filter((id) => !handed.includes(id));
    },
    alongside(nodeId, took) {
      return {
        step: { statement: nodeStops, values: [nodeId] },
        took: (rows) => took((rows[0]?.jobs as string[] | null) ?? []),
      };
    },
  };
}
