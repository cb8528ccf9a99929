/**
 * `npm run bench:log-budget`: what a job that floods its log costs the service, with the
 * service's default log budget (LOG_LIMIT_BYTES 64 MiB, LOG_LINE_OVERHEAD_BYTES 128,
 * LOG_LIMIT_LINES 500000).
 *
 * It starts its own stack as bench:dispatch does (ephemeral Temporal dev server and PostgreSQL on
 * free ports; API and worker in this process). For each of `yes ''` (empty lines: only the row
 * overhead) and `yes` (one-byte lines) it runs two jobs of --seconds each (default 60):
 *
 * - agent: the command on a real agent (`bin/compute.js agent`, its own process), then the job
 *   is cancelled and the agent stopped (two SIGTERMs: stop the job, flush, report). The agent's
 *   own reading of the pipe is what limits it; its CPU use is printed.
 * - protocol: the bench is the node and pushes the same lines as fast as the API takes them,
 *   batches of 5000 (the protocol's most), one in flight as an agent sends them: enough to fill
 *   the budget in seconds and spend the rest of the run trimming the tail.
 *
 * Per job: rows and line bytes stored, the growth of job_logs on disk (pg_total_relation_size,
 * dead rows not yet vacuumed included), the lines the API accepted, the lines the truncation
 * marker counts as dropped, and the push latency (the API's `logs.push`, timed where the route
 * calls it) in the first and the last 10 s: trimming must cost the same after ten million lines
 * as after one. The last line of output is the summary, alone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startChild } from '../src/stack/child';
import { apiClient } from './api';
import { type BenchStack, option, runBench } from './stack';
import { nowMs, sleep, summarize } from './stats';

const ROOT = path.resolve(__dirname, '..');
const WINDOW_MS = 10_000;
const BATCH = 5000;
const COMMANDS = [
  { command: `yes ''`, name: 'yes_empty', line: '' },
  { command: 'yes', name: 'yes', line: 'y' },
];

const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

interface Push {
  at: number;
  ms: number;
  accepted: number;
}

/** Times every push the API serves, per job, where the route calls the logs service. */
function timePushes(stack: BenchStack) {
  const logs = stack.service.services!.logs;
  const pushes = new Map<string, Push[]>();
  const push = logs.push;
  logs.push = async (principal, body) => {
    const at = nowMs();
    const out = await push(principal, body);
    const list = pushes.get(body.jobId) ?? [];
    list.push({ at, ms: nowMs() - at, accepted: out.accepted });
    pushes.set(body.jobId, list);
    return out;
  };
  return (jobId: string) => pushes.get(jobId) ?? [];
}

const relationSize = async (stack: BenchStack) =>
  Number((await stack.db.raw(`SELECT pg_total_relation_size('job_logs') AS size`)).rows[0].size);

/** The size before a job, once what earlier jobs freed has been vacuumed (and trailing pages cut). */
async function sizeBeforeJob(stack: BenchStack): Promise<number> {
  await stack.db.raw('VACUUM job_logs');
  return relationSize(stack);
}

/** CPU seconds a process has used so far (Linux). */
function cpuSeconds(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

async function waitForFirstPush(pushesOf: (jobId: string) => Push[], jobId: string, what: string): Promise<number> {
  for (let waited = 0; pushesOf(jobId).length === 0; waited += 50) {
    if (waited > 60_000) throw new Error(`no log push for ${what} within 60 s`);
    await sleep(50);
  }
  return pushesOf(jobId)[0].at;
}

async function measure(
  stack: BenchStack,
  pushes: Push[],
  o: { jobId: string; started: number; stoppedAt: number; sizeBefore: number },
) {
  const db = stack.db;
  const job = await db('jobs').where({ id: o.jobId }).first('state');
  const stored = await db('job_logs').where({ job_id: o.jobId }).first(
    db.raw('count(*)::int AS rows'),
    db.raw(`count(*) FILTER (WHERE kind = 'line')::int AS lines`),
    db.raw('coalesce(sum(bytes), 0)::bigint AS bytes'),
    db.raw('coalesce(sum(pg_column_size(job_logs.*)), 0)::bigint AS tuple_bytes'),
    // The agent's own notes of lines it could not hold while its pushes were in flight.
    db.raw(
      `coalesce(sum((substring(line FROM '^\\[compute-agent\\] (\\d+) lines dropped'))::bigint), 0)::bigint AS agent_dropped`,
    ),
  );
  const marker = await db('job_logs').where({ job_id: o.jobId, kind: 'truncated' }).first('data');
  const inRun = pushes.filter((p) => p.at < o.stoppedAt);
  return {
    state: job.state as string,
    rows: stored.rows as number,
    lines: stored.lines as number,
    bytes: Number(stored.bytes),
    tupleBytes: Number(stored.tuple_bytes),
    agentDropped: Number(stored.agent_dropped),
    sizeDelta: (await relationSize(stack)) - o.sizeBefore,
    pushed: pushes.reduce((n, p) => n + p.accepted, 0),
    pushedInRun: inRun.reduce((n, p) => n + p.accepted, 0),
    pushes: pushes.length,
    dropped: { lines: Number(marker?.data.droppedLines ?? 0), bytes: Number(marker?.data.droppedBytes ?? 0) },
    first: summarize(inRun.filter((p) => p.at < o.started + WINDOW_MS).map((p) => p.ms)),
    last: summarize(inRun.filter((p) => p.at >= o.stoppedAt - WINDOW_MS).map((p) => p.ms)),
  };
}
type Measured = Awaited<ReturnType<typeof measure>>;

async function onAgent(stack: BenchStack, pushesOf: (jobId: string) => Push[], command: string, seconds: number) {
  const api = apiClient(stack.url);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-bench-agent-'));
  const logFile = path.join(dir, 'agent.log');
  const sizeBefore = await sizeBeforeJob(stack);
  const { job_id: jobId } = await api.call<{ job_id: string }>(
    '/compute/jobs/submit',
    { type: 'COMMAND', command },
    stack.userKey,
  );
  const agent = startChild({
    command: process.execPath,
    args: [
      path.join(ROOT, 'bin/compute.js'),
      'agent',
      '--key',
      stack.userKey,
      '--api',
      stack.url,
      '--dir',
      dir,
      '--name',
      'bench-log-budget',
    ],
    env: { NODE_ENV: 'test', LOG_LEVEL: 'warn' },
    cwd: ROOT,
    logFile,
  });
  try {
    const started = await waitForFirstPush(pushesOf, jobId, command);
    const cpuBefore = cpuSeconds(agent.pid);
    note(`${command} on an agent: ${seconds} s …`);
    await sleep(started + seconds * 1000 - nowMs());
    const stoppedAt = nowMs();
    const agentCpu = (cpuSeconds(agent.pid) - cpuBefore) / ((stoppedAt - started) / 1000);
    await api.call('/compute/jobs/cancel', { job_id: jobId }, stack.userKey);
    // First signal drains, the second stops the job; the agent flushes what it holds, reports, exits.
    process.kill(agent.pid, 'SIGTERM');
    await sleep(200);
    process.kill(agent.pid, 'SIGTERM');
    const exited = await Promise.race([agent.exited.then(() => true), sleep(90_000).then(() => false)]);
    if (!exited) note(`${command}: the agent did not stop within 90 s; see ${logFile}`);
    return { ...(await measure(stack, pushesOf(jobId), { jobId, started, stoppedAt, sizeBefore })), agentCpu };
  } finally {
    await agent.stop(2000);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function onProtocol(
  stack: BenchStack,
  pushesOf: (jobId: string) => Push[],
  what: { command: string; line: string },
  seconds: number,
) {
  const api = apiClient(stack.url);
  const sizeBefore = await sizeBeforeJob(stack);
  const node = await api.register(stack.userKey, 'bench-log-flood');
  const { job_id: jobId } = await api.call<{ job_id: string }>(
    '/compute/jobs/submit',
    { type: 'COMMAND', command: what.command },
    stack.userKey,
  );
  const [job] = await api.poll(node, 1, 10);
  if (job?.job_id !== jobId) throw new Error(`the flood node was handed ${JSON.stringify(job)}, expected ${jobId}`);
  note(`${what.command} pushed at the protocol's pace: ${seconds} s …`);
  const until = nowMs() + seconds * 1000;
  let seq = 0;
  while (nowMs() < until) {
    const lines = Array.from({ length: BATCH }, () => ({ seq: ++seq, stream: 'stdout', line: what.line }));
    await api.call(
      '/compute/nodes/logs',
      { nodeId: node.nodeId, job_id: jobId, leaseId: job.leaseId, lines },
      node.nodeKey,
    );
  }
  const stoppedAt = nowMs();
  await api.result(node, job);
  const pushes = pushesOf(jobId);
  return measure(stack, pushes, { jobId, started: pushes[0].at, stoppedAt, sizeBefore });
}

function report(title: string, r: Measured, maxRows: number, seconds: number) {
  say(title);
  say(
    `  lines pushed   ${r.pushed} in ${r.pushes} pushes (${r.pushedInRun} in the ${seconds} s: ${(r.pushedInRun / seconds).toFixed(0)} lines/s)`,
  );
  say(
    `  rows stored    ${r.rows} (${r.lines} lines + ${r.rows - r.lines} marker): ${r.rows <= maxRows ? 'within' : 'OVER'} the ${maxRows} the budget allows`,
  );
  say(
    `  bytes stored   ${r.bytes} B of line text in ${mib(r.tupleBytes)} of rows; job_logs grew ${mib(r.sizeDelta)} on disk with its indexes (dead rows not yet vacuumed included)`,
  );
  say(
    `  lines dropped  ${r.dropped.lines} (${r.dropped.bytes} B); stored + dropped = ${r.lines + r.dropped.lines} of ${r.pushed}`,
  );
  if (r.agentDropped > 0)
    say(`  agent dropped  ${r.agentDropped} lines before pushing them (its buffer was full; its own notes in the log)`);
  say(
    `  push latency   p50 first 10 s ${r.first.p50.toFixed(2)} ms (n=${r.first.n}), last 10 s ${r.last.p50.toFixed(2)} ms (n=${r.last.n}); p99 ${r.first.p99.toFixed(1)} → ${r.last.p99.toFixed(1)} ms`,
  );
}

async function run(stack: BenchStack, seconds: number): Promise<string> {
  const limits = stack.config.limits;
  const pushesOf = timePushes(stack);
  const maxRows = Math.min(limits.logLinesPerJob, Math.floor(limits.logBytesPerJob / limits.logLineOverheadBytes)) + 1;
  const results = [];
  for (const what of COMMANDS) {
    const agent = await onAgent(stack, pushesOf, what.command, seconds);
    const protocol = await onProtocol(stack, pushesOf, what, seconds);
    results.push({ ...what, agent, protocol });
  }

  say();
  say(
    `== job log budget: ${mib(limits.logBytesPerJob)} (line bytes + ${limits.logLineOverheadBytes} B a line), ${limits.logLinesPerJob} lines: at most ${maxRows} rows a job ==`,
  );
  for (const r of results) {
    report(
      `${r.command}, ${seconds} s on a real agent, then cancelled (${r.agent.state}); the agent used ${(r.agent.agentCpu * 100).toFixed(0)}% of a CPU:`,
      r.agent,
      maxRows,
      seconds,
    );
    report(
      `${r.command} lines, ${seconds} s pushed at the protocol's pace (${BATCH} a push) (${r.protocol.state}):`,
      r.protocol,
      maxRows,
      seconds,
    );
  }
  say();
  const brief = (r: Measured) =>
    `rows=${r.rows}/${maxRows} pushed=${r.pushed} dropped=${r.dropped.lines} p50_first=${r.first.p50.toFixed(1)}ms p50_last=${r.last.p50.toFixed(1)}ms`;
  return results.map((r) => `${r.name} agent: ${brief(r.agent)}; protocol: ${brief(r.protocol)}`).join(' | ');
}

runBench((stack) => run(stack, option('seconds', 60)).then((summary) => `log-budget ${summary}`));
