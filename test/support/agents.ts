import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { type ManagedChild, startChild } from '../../src/stack/child';
import { testEnv } from './env';
import { sleep } from './http';

const ROOT = path.resolve(__dirname, '../..');
let counter = 0;

export interface AgentProcess {
  child: ManagedChild;
  dir: string;
  logFile: string;
  /** The agent's own log so far (pino JSON lines). */
  log(): string;
  nodeId(): string;
}

/** `npx compute agent` as its own process, on the suite's API unless told otherwise; resolves once it polls. */
export async function spawnAgent(opts: {
  key: string;
  apiUrl?: string;
  concurrency?: number;
  labels?: Record<string, string>;
  /** `--region`: a managed-pool agent's region (with a managed-pool key). */
  region?: string;
  /** `--sandbox` (implied by a managed-pool key). */
  sandbox?: boolean;
  /** More flags of `compute agent`. */
  args?: string[];
  dir?: string;
  env?: Record<string, string>;
}): Promise<AgentProcess> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(testEnv().dataDir, 'agent-'));
  const logFile = path.join(testEnv().dataDir, 'logs', `agent-${Date.now()}-${counter++}.log`);
  const args = [
    path.join(ROOT, 'bin/compute.js'),
    'agent',
    '--api',
    opts.apiUrl ?? testEnv().url,
    '--dir',
    dir,
    '--concurrency',
    String(opts.concurrency ?? 1),
    '--name',
    `agent-${counter}`,
  ];
  for (const [k, v] of Object.entries(opts.labels ?? {})) args.push('--label', `${k}=${v}`);
  if (opts.region !== undefined) args.push('--region', opts.region);
  if (opts.sandbox) args.push('--sandbox');
  args.push(...(opts.args ?? []));
  // The key in the environment, as a managed-pool agent must take it (argv is every user's to read).
  const env = { ...testEnv().vars, LOG_LEVEL: 'info', COMPUTE_AGENT_KEY: opts.key, ...opts.env };
  const child = startChild({ command: process.execPath, args, cwd: ROOT, env, logFile });
  const log = () => (fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '');
  for (let i = 0; !log().includes('agent ready'); i++) {
    if (i > 600) throw new Error(`agent never became ready; see ${logFile}`);
    await sleep(50);
  }
  const nodeId = () => JSON.parse(fs.readFileSync(path.join(dir, 'node.json'), 'utf8')).nodeId as string;
  return { child, dir, logFile, log, nodeId };
}

/** True while a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * True while a process with this pid runs. Unlike `alive`, a zombie counts as gone: PID 1 here
 * may never reap the orphans a killed job leaves, and a zombie answers signal 0.
 */
export function running(pid: number): boolean {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return false;
  }
  // "pid (comm) S …": the state follows the last parenthesis (comm may hold any character).
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

/** The pids a job wrote to `file` (space-separated), once the file holds `count` of them. */
export const pidsWritten = (file: string, count = 1) =>
  waitFor(`${count} pid(s) in ${file}`, () => {
    const pids = fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
      : [];
    return pids.length >= count && pids;
  });

export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

/**
 * Agents started by one suite, all stopped after each test (thawed first, should a test have
 * frozen one with SIGSTOP).
 */
export function agentPool() {
  const agents: AgentProcess[] = [];
  afterEach(async () => {
    for (const a of agents.splice(0)) {
      try {
        process.kill(a.child.pid, 'SIGCONT');
      } catch {
        // gone already
      }
      await a.child.stop(2000);
    }
  });
  return async (opts: Parameters<typeof spawnAgent>[0]) => {
    const a = await spawnAgent(opts);
    agents.push(a);
    return a;
  };
}

/** One request that reached an `ApiProxy`, and what became of it. */
export interface ProxiedCall {
  method: string;
  /** The path without the query. */
  path: string;
  query: URLSearchParams;
  /** When its headers arrived (ms since the epoch). */
  at: number;
  body: Buffer;
  /** Set when a fault answered it instead of the API. */
  fault?: string;
  /** When it went on to the API. */
  forwardedAt?: number;
  /** The status the client got; unset while under way (or reset). */
  status?: number;
  /** When the client had the whole answer. */
  answeredAt?: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): any;
}

/** What a proxy does instead of forwarding: cut the connection, or answer with an error. */
export type Fault = { reset: true } | { status: number; code: string; retryAfterSeconds?: number };

export interface ApiProxy {
  /** Give this to the agent as its API URL. */
  url: string;
  /** Every request so far, in arrival order. */
  calls: ProxiedCall[];
  /** Asked once each request's body is in; a fault answers it, undefined forwards it. */
  fault: (call: ProxiedCall) => Fault | undefined;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a real API that records every request and can answer some with a
 * fault. The Host header passes unchanged, so the URLs the API builds (artifact uploads) lead
 * back through the proxy too.
 */
export async function startApiProxy(target = testEnv().url): Promise<ApiProxy> {
  const upstream = new URL(target);
  const outgoing = new Set<http.ClientRequest>();
  const proxy: ApiProxy = { url: '', calls: [], fault: () => undefined, close: async () => undefined };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const chunks: Buffer[] = [];
    const call: ProxiedCall = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      at: Date.now(),
      body: Buffer.alloc(0),
      json: () => JSON.parse(call.body.toString('utf8')),
    };
    proxy.calls.push(call);
    const answered = (status: number) =>
      res.once('finish', () => {
        call.status = status;
        call.answeredAt = Date.now();
      });
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      call.body = Buffer.concat(chunks);
      const fault = proxy.fault(call);
      if (fault && 'reset' in fault) {
        call.fault = 'reset';
        req.socket.destroy();
      } else if (fault) {
        call.fault = String(fault.status);
        answered(fault.status);
        const retryAfter =
          fault.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(fault.retryAfterSeconds) };
        res.writeHead(fault.status, { 'Content-Type': 'application/json', ...retryAfter });
        res.end(JSON.stringify({ status: 'ERROR', code: fault.code, message: 'injected by the test proxy' }));
      } else {
        call.forwardedAt = Date.now();
        const out = http.request(
          { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
          (up) => {
            answered(up.statusCode ?? 0);
            res.writeHead(up.statusCode ?? 502, up.headers);
            up.pipe(res);
          },
        );
        outgoing.add(out);
        out.once('close', () => outgoing.delete(out));
        out.on('error', () => req.socket.destroy());
        out.end(call.body);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.close = async () => {
    for (const out of outgoing) out.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

/**
 * Per-test scratch for the agent's claim suites: paths in the suite's data folder, API proxies,
 * files that let a held job end, and the pids jobs report. Whatever a test leaves behind (a
 * job's process group, a held job, an open proxy) is cleaned up after it, failed or not.
 */
export function agentScratch() {
  const proxies: ApiProxy[] = [];
  const pids: number[] = [];
  const releases: string[] = [];
  let n = 0;
  afterEach(async () => {
    // A job's shell leads its process group: the whole group goes.
    for (const pid of pids.splice(0)) {
      for (const target of [-pid, pid]) {
        try {
          process.kill(target, 'SIGKILL');
        } catch {
          // gone, as it should be
        }
      }
    }
    for (const file of releases.splice(0)) fs.writeFileSync(file, '');
    for (const p of proxies.splice(0)) await p.close();
  });
  /** A path in the suite's data folder that no other test uses. */
  const scratch = (name: string) => path.join(testEnv().dataDir, `claims-${process.pid}-${n++}-${name}`);
  return {
    scratch,
    /** Shell: wait until the test creates `file` (the test's way to let a job go on). */
    until: (file: string) => `while [ ! -e ${file} ]; do sleep 0.05; done`,
    async proxy(target?: string): Promise<ApiProxy> {
      const p = await startApiProxy(target);
      proxies.push(p);
      return p;
    },
    /** A file whose creation lets a job end (`until`); created after the test whatever happened. */
    releaseFile(): string {
      const file = scratch('release');
      releases.push(file);
      return file;
    },
    /** Pids a job wrote to `file`, remembered so that a failing test leaves no process behind. */
    async pidsOf(file: string, count = 1): Promise<number[]> {
      const found = await pidsWritten(file, count);
      pids.push(...found);
      return found;
    },
  };
}
