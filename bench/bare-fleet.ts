import path from 'node:path';
import { NODE_FLAGS } from '../src/runtime/node-flags';
import { startChild } from '../src/stack/child';
import { freePort } from '../src/stack/ports';
import { startBenchChild } from './child-process';
import type { FleetAgent, FleetAnswer, FleetCall } from './fleet-agents';
import { cpuMsOf } from './load';
import { BUILT_ROOT, type BareStack } from './stack';
import { nowMs, sleep } from './stats';

/**
 * The idle fleet against the bare server (bench/bare-fleet-server.ts): the same agents, in a
 * fleet process of their own, each with a poll always waiting and a heartbeat every 30 s. Once
 * every poll waits and their renewals have spread over 30 s, the bare server's CPU over
 * `idleSeconds`, in percent of one core.
 */
export async function bareIdleCpuPct(
  stack: BareStack,
  agents: FleetAgent[],
  idleSeconds: number,
  note: (s: string) => void,
): Promise<number> {
  const port = await freePort();
  const bare = startChild({
    command: process.execPath,
    args: [...NODE_FLAGS.api, path.join(BUILT_ROOT, 'bench/bare-fleet-server.js')],
    env: { DATABASE_URL: stack.databaseUrl, PORT: String(port) },
    logFile: path.join(stack.dataDir, 'logs', 'bare-fleet.log'),
  });
  const url = `http://127.0.0.1:${port}`;
  const held = async () =>
    fetch(`${url}/stats`).then(
      async (r) => ((await r.json()) as { held: number }).held,
      () => 0,
    );
  const fleet = await startBenchChild<FleetCall, FleetAnswer>('fleet-agents', path.join(stack.dataDir, 'logs', 'bare'));
  try {
    for (
      let t = 0;
      !(await fetch(`${url}/stats`).then(
        (r) => r.ok,
        () => false,
      ));
      t++
    ) {
      if (t > 300) throw new Error(`the bare fleet server did not start; see ${stack.dataDir}/logs`);
      await sleep(100);
    }
    note(`the bare server: ${agents.length} agents waiting …`);
    await fleet.ask({ op: 'agents', url, agents });
    await fleet.ask({ op: 'poll', from: 0, to: agents.length });
    await fleet.ask({ op: 'beat' });
    for (let t = 0; (await held()) < agents.length * 0.98; t++) {
      if (t > 600) throw new Error(`only ${await held()} of ${agents.length} polls waiting on the bare server`);
      await sleep(500);
    }
    // As ours: each first poll's wait was spread over 30 s, so by now the renewals are too.
    await sleep(30_000);
    const cpuBefore = cpuMsOf(bare.pid);
    const from = nowMs();
    await sleep(idleSeconds * 1000);
    const pct = ((cpuMsOf(bare.pid) - cpuBefore) / (nowMs() - from)) * 100;
    note(`the bare server idle: ${pct.toFixed(1)}% of one core with ${await held()} polls waiting`);
    return pct;
  } finally {
    await fleet.stop();
    await bare.stop();
  }
}
