import { jobFromRow } from '../jobs/record';
import { webhookJob } from './job-record';
import { iso } from '../shared/time';

/** An outbox row as its receiver gets it (CONTRACT §7): the job in Surface B's form as of the event. */
export function eventBody(e: {
  id: string;
  type: string;
  created_at: Date | string;
  data: { job: Record<string, unknown>; from?: string; to?: string };
}) {
  const { job, ...rest } = e.data;
  return {
    id: e.id,
    type: e.type,
    createdAt: iso(new Date(e.created_at)),
    data: { job: webhookJob(jobFromRow(job)), ...rest },
  };
}
