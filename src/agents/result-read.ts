import { prepared } from '../db/prepared';
import { askableByRowSql } from '../jobs/lease';
import type { Capacity } from './record';

/**
 * A result's reads in one statement: the reporting node (removed or not) and, if the node may ask
 * about it (src/jobs/lease.ts, askableBy), the job and the attempt of the reported lease.
 */
export const resultRead = prepared<{
  id: string;
  workspace_id: string;
  name: string;
  pool: string;
  region: string | null;
  capacity: Capacity | null;
  job_workspace_id: string | null;
  attempt_agent_id: string | null;
}>(
  'agents_result_read',
  `SELECT g.id, g.workspace_id, g.name, g.pool, g.region, g.capacity, j.workspace_id AS job_workspace_id, a.agent_id AS attempt_agent_id
   FROM agents g
   LEFT JOIN jobs j ON j.id = $3 AND j.workflow_started
     AND ${askableByRowSql('j', 'g')}
   LEFT JOIN job_attempts a ON a.job_id = j.id AND a.lease_id = $4
   WHERE g.id = $1 AND g.workspace_id = $2`,
);
