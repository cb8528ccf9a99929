import fs from 'node:fs';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { type Codec, computeCodec } from '../../src/temporal/data-converter';
import { suiteDataKeys } from './data-keys';
import { testEnv } from './env';

let codec: Promise<Codec> | undefined;
let made: Codec | undefined;

/** The codec of the suite's API and worker: payloads sealed with the suite's keys. */
function suiteCodec(): Promise<Codec> {
  codec ??= suiteDataKeys().then(async (keys) => (made = await computeCodec(testEnv().db, testEnv().config, keys)));
  return codec;
}

/** Tells the suite's codec a job's workspace, as a submit does (createJobWorkflowClient's `knowJob`); after suiteClient. */
export function knowSuiteJob(jobId: string, workspaceId: string): void {
  if (!made) throw new Error('knowSuiteJob before the suite codec was made: make a suiteClient first');
  made.knowJob(jobId, workspaceId);
}

/** The data converter of the suite's API and worker. */
export const suiteDataConverter = (): Promise<DataConverter> => suiteCodec().then((c) => c.dataConverter);

/** A Temporal client on the suite's stack that reads and writes payloads as the service does. */
export async function suiteClient(connection?: Connection): Promise<Client> {
  return new Client({
    connection: connection ?? (await Connection.connect({ address: testEnv().config.temporal.address! })),
    namespace: testEnv().config.temporal.namespace,
    dataConverter: await suiteDataConverter(),
  });
}

/** A protobuf timestamp as ISO text, '-' when unset. */
const isoOf = (t?: { seconds?: unknown; nanos?: number | null } | null) =>
  t?.seconds ? new Date(Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6)).toISOString() : '-';

/**
 * What the runs a query names are waiting on, for a timeout's message: each run's status and its
 * pending activities (attempt, state, last heartbeat, last failure), then the last lines of the
 * workers' logs.
 */
export async function pendingWork(client: Client, query: string, logFiles: string[] = []): Promise<string> {
  const lines: string[] = [];
  for await (const run of client.workflow.list({ query })) {
    const d = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    const pending = (d.raw.pendingActivities ?? []).map((a) => {
      return `${a.activityType?.name} attempt ${a.attempt} state ${a.state} last heartbeat ${isoOf(a.lastHeartbeatTime)} last failure ${a.lastFailure?.message ?? 'none'}`;
    });
    lines.push(`${run.workflowId} ${d.status.name}${pending.length ? `: ${pending.join('; ')}` : ''}`);
  }
  if (!lines.length) lines.push(`no run matches ${query}`);
  for (const file of logFiles)
    lines.push(
      `${file}:`,
      ...(fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').slice(-15) : ['(none)']),
    );
  return lines.join('\n');
}

/**
 * Where a job's run stands, for a failure's message: its row (state, attempt, when it is
 * available, any claim), its pending workflow task (a retried one has attempt > 1) and the last
 * events of its run with their times. For a queued job not handed out, a late timer (Temporal's)
 * tells itself apart from a wake-up that did not come (ours).
 */
export async function jobRunStory(jobId: string): Promise<string> {
  const row = await testEnv()
    .db('jobs')
    .where({ id: jobId })
    .first('state', 'attempt', 'available_at', 'claimed_until', 'agent_id');
  const client = await suiteClient();
  const handle = client.workflow.getHandle(jobId);
  const task = (await handle.describe()).raw.pendingWorkflowTask;
  const pending = task
    ? `pending workflow task: ${task.state === 2 ? 'started' : 'scheduled'}, attempt ${task.attempt}, scheduled ${isoOf(task.scheduledTime)}, started ${isoOf(task.startedTime)}`
    : 'no workflow task pending';
  const events = (await handle.fetchHistory()).events ?? [];
  const story = events.slice(-12).map((e) => {
    const kind = Object.keys(e)
      .find((k) => k.endsWith('EventAttributes'))
      ?.replace(/EventAttributes$/, '');
    return `  ${e.eventId} ${isoOf(e.eventTime)} ${kind}`;
  });
  await client.connection.close();
  return [
    `now ${new Date().toISOString()}; row ${JSON.stringify(row)}; ${pending}; last events of its run:`,
    ...story,
  ].join('\n');
}
