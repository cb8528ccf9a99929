import { type Node, apiClient, shedCount } from './api';
import { type DispatchSample, type ThroughputResult, serviceLatency, serviceThroughput } from './service';

// The load generator of `npm run bench:dispatch`'s service comparison, a process of its own
// (started by bench/load-process.ts): it drives the service as compose runs it and the bare
// service alike, so neither shares its CPU with its clients. Asked over the IPC channel; it exits
// when its parent goes.

/** One request to the load generator: its target and what to run. */
export type LoadCall = { url: string } & (
  | { op: 'latency'; args: { userKey: string; node: Node; warmup: number; iterations: number } }
  | {
      op: 'throughput';
      args: { userKey: string; nodes: Node[]; jobs: number; inFlight: number; maxJobs: number };
    }
);
export type LoadRequest = LoadCall & { id: number };
/** Its answer to one request: `shed` counts the 503s with Retry-After its clients waited out so far. */
export type Answer = {
  id: number;
  shed: number;
  error?: string;
  samples?: DispatchSample[];
  result?: ThroughputResult;
};
const answer = (id: number, body: Record<string, unknown>) => process.send!({ id, shed: shedCount(), ...body });

process.on('message', (request: LoadRequest) => {
  const { id } = request;
  const api = apiClient(request.url);
  const work =
    request.op === 'latency'
      ? serviceLatency({ ...request.args, api, settleMs: 40 }).then(({ samples }) => ({ samples }))
      : serviceThroughput({ ...request.args, api, timeoutMs: 150_000 }).then((result) => ({ result }));
  work.then(
    (body) => answer(id, body),
    (err: Error) => answer(id, { error: err.stack ?? err.message }),
  );
});
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
