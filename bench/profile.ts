import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { workflowIdOf } from '../src/temporal/job-workflow-client';
import type { DispatchSample } from './service';
import { ms, summarize } from './stats';

// Where one dispatch's time goes, from timestamps the run leaves anyway: the bench's own clock
// (submit sent, answers received, NOTIFYs delivered to its LISTEN connection), the row's
// created_at (stamped by the API before its INSERT) and the job workflow's history event times
// (the Temporal server's clock). All clocks are this machine's.

interface HistoryEvent {
  eventTime?: { seconds?: unknown; nanos?: number | null } | null;
  [attributes: string]: unknown;
}

const eventMs = (e: HistoryEvent | undefined) =>
  e?.eventTime ? Number(String(e.eventTime.seconds ?? 0)) * 1000 + (e.eventTime.nanos ?? 0) / 1e6 : NaN;
const kindOf = (e: HistoryEvent) =>
  Object.keys(e)
    .find((k) => k.endsWith('EventAttributes'))
    ?.replace(/EventAttributes$/, '') ?? '?';

/** How long the worker spent on the first workflow task and on the one that accepted the Update. */
function taskTimes(events: HistoryEvent[]): { first: number; update: number } {
  const is = (kind: string) => (e: HistoryEvent) => kindOf(e) === kind;
  const accepted = events.findIndex(is('workflowExecutionUpdateAccepted'));
  const before = events.slice(0, Math.max(0, accepted)).reverse();
  return {
    first: eventMs(events.find(is('workflowTaskCompleted'))) - eventMs(events.find(is('workflowTaskStarted'))),
    update: eventMs(before.find(is('workflowTaskCompleted'))) - eventMs(before.find(is('workflowTaskStarted'))),
  };
}

function shapeOf(events: HistoryEvent[]): Record<string, number> {
  const count = (kind: string) => events.filter((e) => kindOf(e) === kind).length;
  return {
    events: events.length,
    workflowTasks: count('workflowTaskCompleted'),
    activities: count('activityTaskScheduled'),
    updates: count('workflowExecutionUpdateAccepted'),
    searchAttributeUpserts: count('upsertWorkflowSearchAttributes'),
  };
}

/** Marks on one dispatch's timeline, in the order they usually happen; several run in parallel. */
const MARKS = [
  'row built (created_at; auth, limits, quota)',
  'workflow started (Temporal)',
  'eager first workflow task started',
  'eager first workflow task completed',
  'submit answered (markStarted committed)',
  'queued NOTIFY delivered (a job queued, not handed)',
  'assign Update task scheduled',
  'assign Update task started',
  'assign Update accepted',
  'assignment projection committed (NOTIFY; a followed job)',
  'poll answer received',
] as const;
/** The NOTIFY marks, which a dispatch may lack: a job handed to the waiting poll is never queued, and only a followed job's changes are NOTIFYed. */
const OPTIONAL = new Set(MARKS.flatMap((name, i) => (name.includes('NOTIFY') ? [i] : [])));

export async function profileDispatch(opts: {
  address: string;
  namespace: string;
  db: Knex;
  samples: DispatchSample[];
  /** bare baseline workflows, whose histories are summed up beside the jobs' */
  bareWorkflowIds?: string[];
  dumpOne?: boolean;
}): Promise<{ lines: string[]; eventsPerJob: number; workflowTasksPerJob: number; activitiesPerJob: number }> {
  const connection = await Connection.connect({ address: opts.address });
  try {
    const client = new Client({ connection, namespace: opts.namespace });
    const rows: Array<{ id: string; created_at: Date | string }> = await opts
      .db('jobs')
      .whereIn(
        'id',
        opts.samples.map((s) => s.jobId),
      )
      .select('id', 'created_at');
    const createdAt = new Map(rows.map((r) => [r.id, new Date(r.created_at).getTime()]));
    const shapes: Array<Record<string, number>> = [];
    const times: Array<{ first: number; update: number }> = [];
    const offsets: number[][] = MARKS.map(() => []);
    const steps: number[][] = MARKS.map(() => []);
    const lines: string[] = [];
    let complete = 0;
    for (const s of opts.samples) {
      const history = await client.workflow.getHandle(workflowIdOf(s.jobId)).fetchHistory();
      const events = (history.events ?? []) as HistoryEvent[];
      const has = (kind: string) => (e: HistoryEvent) => kindOf(e) === kind;
      shapes.push(shapeOf(events));
      times.push(taskTimes(events));
      const started = events.find(has('workflowExecutionStarted'));
      const firstTask = events.find(has('workflowTaskStarted'));
      const firstTaskDone = events.find(has('workflowTaskCompleted'));
      const acceptedIdx = events.findIndex(has('workflowExecutionUpdateAccepted'));
      const before = events.slice(0, Math.max(0, acceptedIdx)).reverse();
      if (opts.dumpOne && lines.length === 0) {
        lines.push(`history of ${workflowIdOf(s.jobId)} (ms after the submit was sent):`);
        for (const e of events) lines.push(`    ${(eventMs(e) - s.sentAt).toFixed(1).padStart(8)}  ${kindOf(e)}`);
      }
      const marks = [
        createdAt.get(s.jobId) ?? NaN,
        eventMs(started),
        eventMs(firstTask),
        eventMs(firstTaskDone),
        s.submittedAt,
        s.queuedNotifyAt ?? NaN,
        eventMs(before.find(has('workflowTaskScheduled'))),
        eventMs(before.find(has('workflowTaskStarted'))),
        eventMs(events[acceptedIdx]),
        s.assignedNotifyAt ?? NaN,
        s.polledAt,
      ].map((t) => t - s.sentAt);
      if (marks.some((m, i) => Number.isNaN(m) && !OPTIONAL.has(i))) continue;
      complete++;
      // Each step from the mark before it that this dispatch has.
      let previous = 0;
      marks.forEach((m, i) => {
        if (Number.isNaN(m)) return;
        offsets[i].push(m);
        steps[i].push(m - previous);
        previous = m;
      });
    }
    lines.push(
      `timeline of ${complete}/${opts.samples.length} dispatches, ms after the submit was sent (created_at has 1 ms resolution):`,
    );
    lines.push(`  ${'mark'.padEnd(58)}   p50 at   mean at   p50 step   p90 step`);
    MARKS.forEach((name, i) => {
      if (offsets[i].length === 0) return void lines.push(`  ${name.padEnd(58)} in none of them`);
      const at = summarize(offsets[i]);
      const step = summarize(steps[i]);
      lines.push(
        `  ${name.padEnd(58)} ${ms(at.p50).padStart(8)}  ${ms(at.mean).padStart(8)}  ${ms(step.p50).padStart(9)}  ${ms(step.p90).padStart(9)}`,
      );
    });
    const mean = (key: string, of: Array<Record<string, number>>) =>
      (of.reduce((s, x) => s + x[key], 0) / of.length).toFixed(1);
    const describeShape = (of: Array<Record<string, number>>) =>
      `${mean('events', of)} events, ${mean('workflowTasks', of)} workflow tasks, ${mean('activities', of)} activities, ${mean('updates', of)} updates, ${mean('searchAttributeUpserts', of)} search-attribute upserts`;
    lines.push(`Temporal work per job (whole life, from the histories): service job ${describeShape(shapes)}`);
    const bareShapes: Array<Record<string, number>> = [];
    const bareTimes: Array<{ first: number; update: number }> = [];
    for (const id of opts.bareWorkflowIds ?? []) {
      const events = ((await client.workflow.getHandle(id).fetchHistory()).events ?? []) as HistoryEvent[];
      bareShapes.push(shapeOf(events));
      bareTimes.push(taskTimes(events));
    }
    if (bareShapes.length > 0) lines.push(`  bare baseline workflow: ${describeShape(bareShapes)}`);
    const p50 = (xs: number[]) => ms(summarize(xs.filter((x) => !Number.isNaN(x))).p50);
    lines.push(
      `worker time per task, p50 (started → completed): first task: job ${p50(times.map((t) => t.first))} ms, bare ${p50(bareTimes.map((t) => t.first))} ms; ` +
        `Update task: job ${p50(times.map((t) => t.update))} ms, bare ${p50(bareTimes.map((t) => t.update))} ms`,
    );
    const avg = (key: string) => shapes.reduce((sum, x) => sum + x[key], 0) / shapes.length;
    return {
      lines,
      eventsPerJob: avg('events'),
      workflowTasksPerJob: avg('workflowTasks'),
      activitiesPerJob: avg('activities'),
    };
  } finally {
    await connection.close();
  }
}
