import pg from 'pg';
import { NOTIFY } from '../src/db/channels';
import type { ApiClient, Assigned, Node } from './api';
import { type Summary, nowMs, runPool, sleep, steadyRate, summarize } from './stats';

// The service driven over HTTP exactly as clients and agents drive it.

/** One measured dispatch, with what the side channels saw of it (epoch ms). */
export interface DispatchSample {
  jobId: string;
  /** just before the submit request was sent */
  sentAt: number;
  /** the submit answer arrived */
  submittedAt: number;
  /** the poll answer holding the job arrived */
  polledAt: number;
  /** this process saw the `job queued` NOTIFY (the service's listener sees the same one) */
  queuedNotifyAt?: number;
  /** this process saw the `job state` NOTIFY of the assignment's projection commit */
  assignedNotifyAt?: number;
}

/** A LISTEN connection of our own on the service's channels: when its NOTIFYs are delivered. */
export async function startNotifyProbe(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl });
  const queued: number[] = [];
  const state = new Map<string, number[]>();
  client.on('notification', (msg) => {
    const at = nowMs();
    if (msg.channel === NOTIFY.jobQueued) queued.push(at);
    else if (msg.payload) state.set(msg.payload, [...(state.get(msg.payload) ?? []), at]);
  });
  await client.connect();
  await client.query(`LISTEN ${NOTIFY.jobQueued}`);
  await client.query(`LISTEN ${NOTIFY.jobState}`);
  return {
    /** The first `queued` NOTIFY in [from, to] and the first state NOTIFY of the job. */
    seen(jobId: string, from: number, to: number) {
      return { queuedNotifyAt: queued.find((t) => t >= from && t <= to), assignedNotifyAt: state.get(jobId)?.[0] };
    },
    stop: () => client.end().catch(() => undefined),
  };
}
export type NotifyProbe = Awaited<ReturnType<typeof startNotifyProbe>>;

/**
 * One job at a time: the node's long poll is already waiting when the submit is sent; the sample
 * is submit sent → poll answer with that job. The result is reported at once.
 */
export async function serviceLatency(opts: {
  api: ApiClient;
  userKey: string;
  node: Node;
  warmup: number;
  iterations: number;
  settleMs: number;
  /** Where the service's NOTIFYs were seen (for the profile); none from a load generator of its own. */
  probe?: NotifyProbe;
}): Promise<{ latency: Summary; submit: Summary; samples: DispatchSample[] }> {
  const { api, node } = opts;
  const once = async (): Promise<DispatchSample> => {
    const polling = api.poll(node, 1, 30).then((jobs) => ({ jobs, at: nowMs() }));
    await sleep(opts.settleMs);
    const sentAt = nowMs();
    const jobId = await api.submit(opts.userKey);
    const submittedAt = nowMs();
    const { jobs, at: polledAt } = await polling;
    if (jobs.length !== 1 || jobs[0].job_id !== jobId)
      throw new Error(`poll answered ${JSON.stringify(jobs)}, expected ${jobId}`);
    await api.result(node, jobs[0]);
    return { jobId, sentAt, submittedAt, polledAt, ...opts.probe?.seen(jobId, sentAt, polledAt) };
  };
  for (let i = 0; i < opts.warmup; i++) await once();
  const samples: DispatchSample[] = [];
  for (let i = 0; i < opts.iterations; i++) samples.push(await once());
  return {
    latency: summarize(samples.map((s) => s.polledAt - s.sentAt)),
    submit: summarize(samples.map((s) => s.submittedAt - s.sentAt)),
    samples,
  };
}

export interface ThroughputResult {
  jobs: number;
  inFlight: number;
  elapsedMs: number;
  perSecond: number;
  steadyPerSecond: number;
  /** submit sent → submit answered, under load */
  submit: Summary;
  /** submit sent → terminal in the read model, under load */
  endToEnd: Summary;
  polls: number;
  jobsPerPoll: number;
  /** failed polls by message (the poller retried each) */
  pollErrors: Map<string, number>;
  /** when each job was seen SUCCEEDED (epoch ms) */
  doneAt: number[];
}

/** How often the read model is read for the jobs a throughput run waits on. */
const READ_MS = 50;

/**
 * A submit pool keeps `inFlight` jobs between submit and terminal; `nodes` long-poll (one poller
 * each) and report each job's result as soon as they hold it. With `databaseUrl`, a job is done
 * when its row in the read model says SUCCEEDED; without, when its result is answered (the
 * service answers once the row is written, and so does the bare service): a load generator in a
 * process of its own then sends no statement of its own.
 */
export async function serviceThroughput(opts: {
  api: ApiClient;
  databaseUrl?: string;
  userKey: string;
  nodes: Node[];
  jobs: number;
  inFlight: number;
  maxJobs: number;
  timeoutMs: number;
  /** Called with the number of jobs done so far, as each is done. */
  onDone?: (done: number) => void;
}): Promise<ThroughputResult> {
  const { api } = opts;
  const waiters = new Map<string, { resolve: () => void; reject: (err: Error) => void }>();
  const abort = new AbortController();
  const problems: Error[] = [];
  const reports = new Set<Promise<void>>();
  const pollErrors = new Map<string, number>();
  let polls = 0;
  let handedOut = 0;

  let expired = false;
  // Done is judged by the read model: a connection of the bench's reads the rows of the jobs it
  // waits for every READ_MS (the projection NOTIFYs a job's end only when its log is followed).
  const reader = opts.databaseUrl ? new pg.Client({ connectionString: opts.databaseUrl }) : undefined;
  // Without the read model: results answered before their submit's answer registered a waiter.
  const answered = new Set<string>();
  const onAnswered = (jobId: string) => {
    if (reader) return;
    const w = waiters.get(jobId);
    waiters.delete(jobId);
    if (w) w.resolve();
    else answered.add(jobId);
  };
  let reading = false;
  const settle = async () => {
    if (reading || waiters.size === 0 || abort.signal.aborted) return;
    reading = true;
    try {
      const { rows } = await reader!.query<{ id: string; state: string }>(
        `SELECT id, state FROM jobs WHERE id = ANY($1) AND state NOT IN ('QUEUED', 'RUNNING')`,
        [[...waiters.keys()]],
      );
      for (const row of rows) {
        const w = waiters.get(row.id);
        waiters.delete(row.id);
        if (row.state === 'SUCCEEDED') w?.resolve();
        else w?.reject(new Error(`job ${row.id} ended ${row.state}`));
      }
    } catch (err) {
      problems.push(err as Error);
      for (const w of waiters.values()) w.reject(err as Error);
      waiters.clear();
    } finally {
      reading = false;
    }
  };
  await reader?.connect();
  const reads = reader ? setInterval(() => void settle(), READ_MS) : undefined;
  const expiry = setInterval(() => {
    if (!expired) return;
    for (const w of waiters.values()) w.reject(new Error('throughput run timed out'));
    waiters.clear();
  }, 500);
  const wait = (jobId: string) =>
    new Promise<void>((resolve, reject) => {
      if (answered.delete(jobId)) return resolve();
      waiters.set(jobId, { resolve, reject });
    });

  // Pollers stop after the poll they are in once the run is over; sentinel submits wake the
  // waiting ones (aborting the request would leave the server's side waiting out its 30 s).
  let finished = false;
  let alive = opts.nodes.length;
  const poller = async (node: Node) => {
    try {
      while (!abort.signal.aborted) {
        let jobs: Assigned[];
        try {
          jobs = await api.poll(node, opts.maxJobs, 30, abort.signal);
        } catch (err) {
          if (abort.signal.aborted) return;
          // An agent retries a failed poll; the run goes on, the report counts them.
          const message = String((err as Error).message);
          pollErrors.set(message, (pollErrors.get(message) ?? 0) + 1);
          await sleep(10);
          continue;
        }
        polls++;
        handedOut += jobs.length;
        for (const job of jobs) {
          const report = api.result(node, job).then(
            () => onAnswered(job.job_id),
            (err: Error) => void problems.push(err),
          );
          reports.add(report);
          void report.finally(() => reports.delete(report));
        }
        if (finished) return;
      }
    } finally {
      alive--;
    }
  };
  const pollers = opts.nodes.map((node) => poller(node).catch((err: Error) => void problems.push(err)));

  const submitMs: number[] = [];
  const endToEndMs: number[] = [];
  const doneAt: number[] = [];
  const deadline = setTimeout(() => (expired = true), opts.timeoutMs);
  let elapsedMs: number;
  try {
    elapsedMs = await runPool(opts.jobs, opts.inFlight, async () => {
      if (expired || problems.length > 0) throw new Error('throughput run timed out or failed');
      const sentAt = nowMs();
      const jobId = await api.submit(opts.userKey);
      submitMs.push(nowMs() - sentAt);
      await wait(jobId);
      const at = nowMs();
      endToEndMs.push(at - sentAt);
      doneAt.push(at);
      opts.onDone?.(doneAt.length);
    });
    finished = true;
    for (let i = 0; alive > 0 && i < 100; i++) {
      const waiting = alive;
      await api.submit(opts.userKey);
      for (let t = 0; alive === waiting && t < 20; t++) await sleep(10);
    }
  } finally {
    clearTimeout(deadline);
    if (alive > 0) abort.abort();
    await Promise.allSettled(pollers);
    await Promise.allSettled([...reports]);
    abort.abort();
    clearInterval(expiry);
    clearInterval(reads);
    await reader?.end().catch(() => undefined);
  }
  if (problems.length > 0) throw new Error(`${problems.length} agent calls failed: ${problems[0].message}`);
  return {
    jobs: opts.jobs,
    inFlight: opts.inFlight,
    elapsedMs,
    perSecond: (opts.jobs / elapsedMs) * 1000,
    steadyPerSecond: steadyRate(doneAt),
    submit: summarize(submitMs),
    endToEnd: summarize(endToEndMs),
    polls,
    jobsPerPoll: polls ? handedOut / polls : 0,
    pollErrors,
    doneAt,
  };
}
