import fs from 'node:fs';
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
export async function spawnAgent(opts: { key: string; apiUrl?: string; concurrency?: number; labels?: Record<string, string>; dir?: string; env?: Record<string, string> }): Promise<AgentProcess> {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(testEnv().dataDir, 'agent-'));
  const logFile = path.join(testEnv().dataDir, 'logs', `agent-${Date.now()}-${counter++}.log`);
  const args = [path.join(ROOT, 'bin/compute.js'), 'agent', '--key', opts.key, '--api', opts.apiUrl ?? testEnv().url, '--dir', dir, '--concurrency', String(opts.concurrency ?? 1), '--name', `agent-${counter}`];
  for (const [k, v] of Object.entries(opts.labels ?? {})) args.push('--label', `${k}=${v}`);
  const child = startChild({ command: process.execPath, args, cwd: ROOT, env: { ...testEnv().vars, LOG_LEVEL: 'info', ...opts.env }, logFile });
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

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
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
