import fs from 'node:fs';
import os from 'node:os';
import type { Knex } from 'knex';
import { nowMs } from './stats';

// Where a phase's CPU and database connections go: CPU time per process group from /proc (Linux),
// and the service's knex pool sampled while the phase runs.

const CLK_TCK = 100; // USER_HZ: 100 on every mainstream Linux

type Group = string;

/** Processes named by the bench (the API or the worker it spawned); the rest by what they are. */
function groupOf(pid: number, comm: string, named: Record<number, string>): Group {
  if (named[pid]) return named[pid];
  if (pid === process.pid) return 'this process (API + worker + bench)';
  if (comm.startsWith('temporal-server')) return 'temporal server';
  if (comm.startsWith('temporal')) return 'temporal dev server';
  if (comm.startsWith('postgres')) return 'postgres';
  return 'other';
}

/** A process's command name and CPU time so far (user + system, ms) from /proc; undefined once it has exited. */
function procStat(pid: number | string): { comm: string; cpuMs: number } | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return {
    comm: stat.slice(stat.indexOf('(') + 1, close),
    cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK,
  };
}

/** CPU time (user + system) a process has used so far, in ms. */
export const cpuMsOf = (pid: number): number => procStat(pid)?.cpuMs ?? NaN;

/**
 * CPU time per thread of a process so far, in ms, by thread ID (the main thread's is the
 * process's pid): a Node process's main thread apart from V8's and libuv's helper threads.
 */
export function threadCpuMsOf(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
    const stat = procStat(`${pid}/task/${tid}`);
    if (stat) out.set(Number(tid), stat.cpuMs);
  }
  return out;
}

/** Resident memory of a process now, in MiB. */
export const rssMiB = (pid: number = process.pid): number =>
  Number(/^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

const pids = () => fs.readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));

/** The first process whose command name starts with `prefix` (the Temporal dev server: `temporal`). */
export function pidOf(prefix: string): number | undefined {
  const pid = pids().find((p) => procStat(p)?.comm.startsWith(prefix));
  return pid === undefined ? undefined : Number(pid);
}

function cpuByGroup(named: Record<number, string>): Map<Group, number> {
  const out = new Map<Group, number>();
  for (const [, { group, cpuMs }] of cpuByPid(named)) out.set(group, (out.get(group) ?? 0) + cpuMs);
  return out;
}

function cpuByPid(named: Record<number, string>): Map<string, { group: Group; cpuMs: number }> {
  const out = new Map<string, { group: Group; cpuMs: number }>();
  for (const pid of pids()) {
    const stat = procStat(pid);
    if (!stat) continue; // exited meanwhile
    out.set(pid, { group: groupOf(Number(pid), stat.comm, named), cpuMs: stat.cpuMs });
  }
  return out;
}

/**
 * CPU per group over a phase, process by process: one that started during it counts whole, one
 * that exited counts nothing (its last moments are lost, never its whole past: an idle database
 * connection closed mid-phase would otherwise take its backend's history off the phase).
 */
function cpuSpent(before: Map<string, { cpuMs: number }>, named: Record<number, string>): Map<Group, number> {
  const out = new Map<Group, number>();
  for (const [pid, { group, cpuMs }] of cpuByPid(named)) {
    const prior = before.get(pid)?.cpuMs ?? 0;
    // Less than before: the pid was reused by a process started during the phase.
    out.set(group, (out.get(group) ?? 0) + (cpuMs >= prior ? cpuMs - prior : cpuMs));
  }
  return out;
}

interface PoolLike {
  numUsed?(): number;
  numPendingAcquires?(): number;
}

/**
 * Resolves once the machine has settled: the CPU used by every process here stayed under
 * `threshold` (a share of one core) for `quietMs`. Work a phase left behind (workflow tasks the
 * worker has not run yet) is then done, and charged to that phase.
 */
export async function untilIdle(o: { threshold?: number; quietMs?: number; timeoutMs?: number } = {}): Promise<void> {
  const threshold = o.threshold ?? 0.1;
  const quietMs = o.quietMs ?? 1000;
  const deadline = nowMs() + (o.timeoutMs ?? 120_000);
  const total = () => [...cpuByGroup({}).values()].reduce((s, ms) => s + ms, 0);
  let quietSince = nowMs();
  let last = total();
  while (nowMs() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    const now = total();
    if (now - last > threshold * 250) quietSince = nowMs();
    else if (nowMs() - quietSince >= quietMs) return;
    last = now;
  }
  throw new Error('the machine did not settle');
}

/** Starts measuring; `stop()` returns report lines for the phase. `named`: pids the report names. */
export function watchLoad(db?: Knex, named: Record<number, string> = {}) {
  const startedAt = nowMs();
  const before = cpuByPid(named);
  const pool = (db?.client as { pool?: PoolLike } | undefined)?.pool;
  const used: number[] = [];
  const pending: number[] = [];
  const sampler = setInterval(() => {
    if (pool?.numUsed && pool.numPendingAcquires) {
      used.push(pool.numUsed());
      pending.push(pool.numPendingAcquires());
    }
  }, 20);
  let spent: Array<readonly [Group, number]> = [];
  return {
    /** After `stop`: the CPU each group spent per job, in ms. */
    perJob(jobs: number): Record<Group, number> {
      return Object.fromEntries(spent.map(([group, ms]) => [group, ms / jobs]));
    },
    /** Report lines; with `jobs`, also the CPU each job cost. */
    stop(jobs?: number): string[] {
      clearInterval(sampler);
      const wallMs = nowMs() - startedAt;
      spent = [...cpuSpent(before, named).entries()]
        .filter(([, ms]) => (ms / wallMs) * 100 >= 0.5)
        .sort((a, b) => b[1] - a[1]);
      const parts = spent.map(([group, ms]) => `${group} ${((ms / wallMs) * 100).toFixed(0)}%`);
      const lines = [`CPU (of ${100 * os.cpus().length}%): ${parts.join(', ')}`];
      if (jobs) {
        const total = spent.reduce((s, [, ms]) => s + ms, 0);
        lines.push(
          `CPU per job: ${(total / jobs).toFixed(1)} ms (${spent.map(([group, ms]) => `${group.split(' ')[0]} ${(ms / jobs).toFixed(1)}`).join(', ')})`,
        );
      }
      if (used.length > 0) {
        const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
        lines.push(
          `service knex pool: ${mean(used).toFixed(1)} connections in use on average (max ${Math.max(...used)}), ` +
            `${mean(pending).toFixed(1)} acquires waiting on average (max ${Math.max(...pending)})`,
        );
      }
      return lines;
    },
  };
}

/**
 * The service's own statements while a phase runs, by kind (the knex `query` event: every
 * statement the API, the worker's activities and the limiter send through the service's pool).
 */
export function watchQueries(db: Knex) {
  const counts = new Map<string, number>();
  const kindOf = (sql: string) => {
    const s = sql.replace(/\s+/g, ' ').trim();
    const verb = s.split(' ')[0].toLowerCase();
    const table = /\b(?:from|into|update|join)\s+"?([a-z_]+)"?/i.exec(s)?.[1] ?? '';
    if (verb === 'select' && /pg_notify/.test(s)) return `notify`;
    if (/pg_advisory/.test(s)) return `${verb} advisory lock`;
    return `${verb} ${table}`.trim();
  };
  // A statement outside a transaction block is a transaction of its own; a block is one however
  // many statements it holds.
  let alone = 0;
  const blocks = new Set<string>();
  const onQuery = (q: { sql?: string; __knexTxId?: string }) => {
    const kind = kindOf(q.sql ?? '');
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
    if (q.__knexTxId) blocks.add(q.__knexTxId);
    else alone++;
  };
  db.on('query', onQuery);
  return {
    stop(jobs: number): string {
      db.off('query', onQuery);
      const total = [...counts.values()].reduce((s, n) => s + n, 0);
      const top = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12);
      const transactions = (alone + blocks.size) / jobs;
      return (
        `service statements per job: ${(total / jobs).toFixed(1)} (${top.map(([k, n]) => `${k} ${(n / jobs).toFixed(2)}`).join(', ')}); ` +
        `transactions per job: ${transactions.toFixed(1)}, ${(transactions / 3).toFixed(1)} per transition (submit, assign, result; polls and reads included)`
      );
    },
  };
}
