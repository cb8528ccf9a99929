import { setTimeout as sleep } from 'node:timers/promises';
import type { SoakClient } from './client';

// The steady mix of jobs the soak submits, and what it remembers of each: the Idempotency-Key it
// was submitted with, and whether (and with which job ID) the API acknowledged it.

/** Lines a long job prints, one every quarter second: `line 1` … `line N`. */
export const LONG_LINES = 16;
export const ARTIFACT_NAME = 'out.bin';

export const KINDS = {
  short: { command: 'echo short', timeoutSeconds: 120 },
  long: {
    command: `i=1; while [ $i -le ${LONG_LINES} ]; do echo "line $i"; i=$((i+1)); sleep 0.25; done`,
    timeoutSeconds: 120,
  },
  failing: {
    command: 'echo "attempt $COMPUTE_ATTEMPT"; exit 3',
    timeoutSeconds: 120,
    retry: { maxAttempts: 2, backoffSeconds: 1 },
  },
  timeout: { command: 'echo started; sleep 60', timeoutSeconds: 2 },
  cancel: { command: 'echo started; sleep 60', timeoutSeconds: 120 },
  artifact: {
    command: `head -c 4096 /dev/urandom > ${ARTIFACT_NAME} && echo "sha256=$(sha256sum ${ARTIFACT_NAME} | cut -d' ' -f1)"`,
    timeoutSeconds: 120,
    artifacts: { paths: [ARTIFACT_NAME] },
  },
  managed: {
    command: 'echo managed; sleep 1',
    timeoutSeconds: 30,
    pool: 'managed',
    resources: { cpu: 1, memoryMb: 256 },
  },
} as const;

export type Kind = keyof typeof KINDS;
export const ALL_KINDS = Object.keys(KINDS) as Kind[];
/** One round of the mix: the common kinds more often. */
const ROUND: Kind[] = [
  'short',
  'long',
  'artifact',
  'managed',
  'failing',
  'timeout',
  'cancel',
  'short',
  'long',
  'artifact',
];

export interface Submitted {
  key: string;
  kind: Kind;
  /** When the first request went out (ms). */
  at: number;
  /** The job's ID once a submit was answered 2xx. */
  id?: string;
  /** How long until the 2xx. */
  ackMs?: number;
  /** The last answer that was not 2xx (402 at the hard cap), or the network error. */
  refused?: string;
  /** Another ID than `id` answered for the same key (a replay that made a second job). */
  otherIds: string[];
  /** For `cancel`: the state the job was in when the cancel was answered. */
  cancelled?: string;
}

export interface Workload {
  jobs: Submitted[];
  /** Stops submitting; resolves when every submit and cancel under way has its answer. */
  stop(): Promise<void>;
}

export function startWorkload(o: {
  client: SoakClient;
  runId: string;
  /** Without a managed-pool agent, no managed jobs. */
  managed: boolean;
  intervalMs: number;
  maxInFlight: number;
  log: (msg: string) => void;
}): Workload {
  const jobs: Submitted[] = [];
  const pending = new Set<Promise<void>>();
  let stopped = false;
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };
  const round = ROUND.filter((k) => o.managed || k !== 'managed');
  const loop = (async () => {
    for (let n = 0; !stopped; n++) {
      if (pending.size < o.maxInFlight) {
        const job: Submitted = { key: `${o.runId}-${n}`, kind: round[n % round.length], at: Date.now(), otherIds: [] };
        jobs.push(job);
        track(
          submitOne(o.client, job, n % 4 === 0).then(() =>
            job.kind === 'cancel' && job.id ? cancelWhileRunning(o.client, job) : undefined,
          ),
        );
      }
      await sleep(o.intervalMs * (0.5 + Math.random()));
    }
  })();
  return {
    jobs,
    async stop() {
      stopped = true;
      await loop;
      while (pending.size) await Promise.allSettled([...pending]);
    },
  };
}

export const manifestOf = (job: Pick<Submitted, 'key' | 'kind'>) => ({
  type: 'COMMAND',
  ...KINDS[job.kind],
  labels: { 'soak-kind': job.kind, 'soak-key': job.key },
});

/** Submits with the job's Idempotency-Key until answered; with `replay`, once more after the 2xx. */
async function submitOne(client: SoakClient, job: Submitted, replay: boolean): Promise<void> {
  const send = () =>
    client.retried('POST', '/v0/jobs', manifestOf(job), { 'Idempotency-Key': job.key }, 90_000).catch((err: Error) => {
      job.refused = `network: ${err.message}`;
      return undefined;
    });
  const answer = await send();
  if (!answer) return;
  if (answer.status !== 201 && answer.status !== 200) {
    job.refused = `${answer.status} ${answer.body?.code ?? ''}`;
    return;
  }
  job.id = answer.body.id;
  job.ackMs = Date.now() - job.at;
  if (!replay) return;
  // The same request again returns the first answer: the same job, never a second one.
  const again = await send();
  if (again && (again.status === 201 || again.status === 200) && again.body.id !== job.id)
    job.otherIds.push(again.body.id);
}

/** Cancels the job once an agent runs it (or after 10 s, when it may still be queued). */
async function cancelWhileRunning(client: SoakClient, job: Submitted): Promise<void> {
  const deadline = Date.now() + 10_000;
  await sleep(500 + Math.random() * 1500);
  while (Date.now() < deadline) {
    const read = await client.retried('GET', `/v0/jobs/${job.id}`, undefined, {}, 10_000).catch(() => undefined);
    if (read?.body?.state !== 'QUEUED') break;
    await sleep(300);
  }
  const answer = await client
    .retried('POST', `/v0/jobs/${job.id}:cancel`, undefined, {}, 90_000)
    .catch(() => undefined);
  job.cancelled = answer?.status === 200 ? answer.body.state : `not answered (${answer?.status ?? 'network'})`;
}
