import fs from 'node:fs';
import path from 'node:path';
import { startBenchChild } from './child-process';
import type { FleetAgent, FleetAnswer, FleetCall } from './fleet-agents';
import { scrape, total } from '../test/support/metrics';
import { type BareStack, spawnService } from './stack';
import { sleep } from './stats';

const waitingAt = async (url: string) => total(await scrape(url), 'compute_long_polls_waiting');

/**
 * Waits until about `n` polls wait at the API at `url`. While thousands of agents connect at once
 * its accept queue is full and a scrape may fail to connect: that is a "not yet", not a failure.
 */
export async function waitingFor(url: string, n: number): Promise<number> {
  for (let t = 0; (await waitingAt(url).catch(() => 0)) < n * 0.98; t++) {
    if (t > 600) throw new Error(`only ${await waitingAt(url)} of ${n} polls waiting`);
    await sleep(500);
  }
  return waitingAt(url);
}

/**
 * What a waiting poll holds in the API's heap, weighed on an API instance of its own, stopped
 * afterwards. The heap is read just after a heap snapshot, which collects all garbage first (the
 * renewing polls leave plenty), with 10 polls waiting, at half of `depth` and at the whole of it:
 * the growth from half to whole, per poll, is what a waiting poll holds (the first half also warms
 * up compiled code and caches once). The instance is not the one the idle and dispatch figures
 * are read on: after its first heap snapshot V8 tracks every object's moves for the rest of the
 * process's life, and each young-generation collection then costs several times as much.
 * `keepIn`: a folder to keep the snapshots in (FLEET_HEAP_SNAPSHOTS), to see what a poll holds.
 */
export async function weighWaitingPolls(
  stack: BareStack,
  agents: FleetAgent[],
  depth: number,
  keepIn: string | undefined,
): Promise<{ kibPerPoll: number; report: string }> {
  const snapshots = keepIn ?? fs.mkdtempSync(path.join(stack.dataDir, 'heap-'));
  const api = await spawnService(stack, 'api', {}, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshots}`]);
  const fleet = await startBenchChild<FleetCall, FleetAnswer>('fleet-agents', path.join(stack.dataDir, 'logs', 'heap'));
  /** The API's live heap, in bytes: the sum over a heap snapshot, read from the file. */
  const liveHeap = async () => {
    const before = new Set(fs.readdirSync(snapshots));
    process.kill(api.pid, 'SIGUSR2');
    let file: string | undefined;
    for (let size = -1, t = 0; ; t++, await sleep(1000)) {
      file ??= fs.readdirSync(snapshots).find((f) => !before.has(f));
      const now = file ? fs.statSync(path.join(snapshots, file)).size : -1;
      if (now > 0 && now === size) break;
      if (t > 300) throw new Error('the heap snapshot never finished');
      size = now;
    }
    const full = path.join(snapshots, file!);
    const { snapshot, nodes } = JSON.parse(fs.readFileSync(full, 'utf8')) as {
      snapshot: { meta: { node_fields: string[] } };
      nodes: number[];
    };
    const width = snapshot.meta.node_fields.length;
    const at = snapshot.meta.node_fields.indexOf('self_size');
    let bytes = 0;
    for (let i = at; i < nodes.length; i += width) bytes += nodes[i];
    if (!keepIn) fs.rmSync(full);
    return bytes;
  };
  try {
    await fleet.ask({ op: 'agents', url: api.url!, agents });
    const start = (from: number, to: number) => fleet.ask({ op: 'poll', from, to });
    await start(0, 10);
    const atFew = await waitingFor(api.url!, 10);
    const heapAtFew = await liveHeap();
    const half = Math.floor(depth / 2);
    await start(10, half);
    const atHalf = await waitingFor(api.url!, half);
    const heapAtHalf = await liveHeap();
    await start(half, depth);
    const atDepth = await waitingFor(api.url!, depth);
    const heapAtDepth = await liveHeap();
    const kibPerPoll = (heapAtDepth - heapAtHalf) / (atDepth - atHalf) / 1024;
    const kibFirstHalf = (heapAtHalf - heapAtFew) / (atHalf - atFew) / 1024;
    const mib = (b: number) => (b / 2 ** 20).toFixed(0);
    return {
      kibPerPoll,
      report:
        `${atHalf} → ${atDepth} polls waiting: live API heap ${mib(heapAtHalf)} → ${mib(heapAtDepth)} MiB, ${kibPerPoll.toFixed(1)} KiB per waiting poll ` +
        `(heap snapshots, on an API instance of their own; ${kibFirstHalf.toFixed(1)} KiB per poll over the first ${atHalf}, with what they warmed up)`,
    };
  } finally {
    await fleet.stop();
    await api.stop();
  }
}
