// The Surface A protocol as the benchmark drives it: every call is POST JSON, answers are
// `{status: 'OK', payload}`.

export interface Node {
  nodeId: string;
  nodeKey: string;
}

export interface Assigned {
  job_id: string;
  leaseId: string;
}

// A 503 with Retry-After is the service shedding load before it did anything (an instance's
// change limit, a pool that could not be had): a real client waits as told and asks again, so the
// benchmark does too rather than ending the run. Anything else is fatal.
const MAX_RETRIES_AFTER_503 = 20;

export function apiClient(baseUrl: string) {
  async function call<T = Record<string, unknown>>(
    path: string,
    body: unknown,
    key: string,
    signal?: AbortSignal,
  ): Promise<T> {
    let res: Response;
    let text: string;
    for (let retries = 0; ; retries++) {
      res = await fetch(`${baseUrl}/api${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: JSON.stringify(body),
        signal,
      });
      text = await res.text();
      const header = res.headers.get('retry-after');
      const retryAfter = header === null ? NaN : Number(header);
      if (res.status !== 503 || !(retryAfter >= 0) || retries >= MAX_RETRIES_AFTER_503) break;
      shed503s++;
      await new Promise((resolve) => setTimeout(resolve, Math.max(retryAfter, 0.05) * 1000));
    }
    if (res.status !== 200) throw new Error(`${path} -> ${res.status} ${text}`);
    const parsed = JSON.parse(text) as { status: string; payload: T };
    if (parsed.status !== 'OK') throw new Error(`${path} -> ${text}`);
    return parsed.payload;
  }

  return {
    call,
    async register(userKey: string, name: string, labels: Record<string, string> = {}): Promise<Node> {
      const reg = await call<{ nodeId: string; apiKey: string }>('/compute/nodes/register', { name, labels }, userKey);
      return { nodeId: reg.nodeId, nodeKey: reg.apiKey };
    },
    /** A `true` job; with a selector no node matches (`{ queue: 'nobody' }`), one that stays queued. */
    async submit(userKey: string, selector?: Record<string, string>): Promise<string> {
      const out = await call<{ job_id: string }>(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: 'true', ...(selector && { selector }) },
        userKey,
      );
      return out.job_id;
    },
    async poll(node: Node, maxJobs: number, waitSeconds: number, signal?: AbortSignal): Promise<Assigned[]> {
      const out = await call<{ jobs: Assigned[] }>(
        '/compute/nodes/poll',
        { nodeId: node.nodeId, maxJobs, waitSeconds },
        node.nodeKey,
        signal,
      );
      return out.jobs;
    },
    async result(node: Node, job: Assigned): Promise<void> {
      await call(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, exitCode: 0, runtimeMs: 1 },
        node.nodeKey,
      );
    },
  };
}

/** How many 503s with Retry-After the benchmark's clients waited out, for the summary line. */
let shed503s = 0;
export const shedCount = (): number => shed503s;

export type ApiClient = ReturnType<typeof apiClient>;
