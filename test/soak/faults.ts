import { setTimeout as sleep } from 'node:timers/promises';
import type { SoakStack } from './stack';

// The fault loop: every few seconds one fault, the kinds dealt from a shuffled deck so each comes
// up once per round. Every process killed is restarted by its supervisor; PostgreSQL and MinIO
// come back on their data; a cut drops every connection through the relay at once.

export const FAULT_KINDS = [
  'kill-api',
  'kill-worker',
  'kill-agent',
  'kill-temporal',
  'crash-postgres',
  'crash-minio',
  'cut-postgres',
  'cut-temporal',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface FaultLog {
  counts: Record<FaultKind, number>;
  /** How long each crash() took to bring its service back (ms). */
  restartMs: number[];
  total: number;
}

export interface FaultLoop {
  log: FaultLog;
  stop(): Promise<FaultLog>;
}

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

async function inflict(s: SoakStack, kind: FaultKind, log: FaultLog): Promise<string> {
  switch (kind) {
    case 'kill-api': {
      const api = pick(s.stack.apis);
      api.kill('SIGKILL');
      return api.name;
    }
    case 'kill-worker': {
      const worker = pick(s.stack.workers);
      worker.kill('SIGKILL');
      return worker.name;
    }
    case 'kill-agent': {
      const agent = pick(s.agents);
      agent.kill('SIGKILL');
      return agent.name;
    }
    case 'kill-temporal':
      s.stack.temporal.server.kill('SIGKILL');
      return 'temporal-server';
    case 'crash-postgres':
    case 'crash-minio': {
      const target = kind === 'crash-postgres' ? s.stack.postgres : s.stack.minio;
      const started = Date.now();
      await target.crash();
      log.restartMs.push(Date.now() - started);
      return target.name;
    }
    case 'cut-postgres':
      s.pgRelay.cut();
      return 'postgresql relay';
    case 'cut-temporal':
      s.temporalRelay.cut();
      return 'temporal relay';
  }
}

export function startFaults(s: SoakStack, o: { intervalMs: number; say: (msg: string) => void }): FaultLoop {
  const log: FaultLog = {
    counts: Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>,
    restartMs: [],
    total: 0,
  };
  const stopper = new AbortController();
  const loop = (async () => {
    const started = Date.now();
    while (!stopper.signal.aborted) {
      for (const kind of shuffled(FAULT_KINDS)) {
        await sleep(o.intervalMs * (0.75 + Math.random() / 2), undefined, { signal: stopper.signal }).catch(
          () => undefined,
        );
        if (stopper.signal.aborted) return;
        const what = await inflict(s, kind, log);
        log.counts[kind]++;
        log.total++;
        o.say(`fault ${log.total} at ${((Date.now() - started) / 1000).toFixed(1)} s: ${kind} (${what})`);
      }
    }
  })();
  return {
    log,
    async stop() {
      stopper.abort();
      await loop;
      return log;
    },
  };
}
