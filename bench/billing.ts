/**
 * `npm run bench:billing`: what billing costs where it sits on a hot path.
 *
 * 1. The credit gate on a submit: submits through the API (in this process, with its worker) to a
 *    workspace on `payg`, in rounds alternating between managed jobs (the gate's transaction
 *    locks the account and reserves the worst case) and self jobs (no gate at all: the submit's
 *    hot path, no transaction). Jobs wait where no agent takes them. Target: ratio ≥ 0.9.
 * 2. A meter tick at fleet scale: --attempts (default 10 000) attempts running across 100
 *    workspaces (half managed on payg, half self), each tick metering every one of them; the
 *    tick's duration against METER_TICK_SECONDS (60). Target: under a tenth of the tick.
 *
 * Options: --jobs (per round, default 300), --concurrency (default 8), --rounds (pairs, default 3),
 * --attempts, --ticks (default 3).
 *
 * Last line: `billing ratio_gated_submit_rate=… tick_ms_at_N=… tick_fraction=…`.
 */
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { meterTick } from '../src/billing/meter';
import { setBilling } from '../src/billing/subscription';
import { newId } from '../src/shared/ids';
import { createWorkspace } from '../src/workspaces/rows';
import { apiClient } from './api';
import { type BenchStack, option, runBench } from './stack';
import { ms, nowMs, runPool, summarize } from './stats';

const say = (line = '') => process.stdout.write(`${line}\n`);
const OPERATOR = { type: 'system', id: 'bench' } as const;
const TICK_SECONDS = 60;

async function billedWorkspace(db: Knex, plan: 'payg' | 'hobby', region: string) {
  const workspaceId = await createWorkspace(db, `bench-${plan}`);
  await db('workspaces').where({ id: workspaceId }).update({ default_region: region });
  await setBilling(db, { workspaceId, plan, creditUsd: plan === 'payg' ? '999999999' : '0', actor: OPERATOR });
  const { key } = await createApiKey(db, { workspaceId, name: 'bench', kind: 'user' });
  return { workspaceId, key };
}

/** `n` attempts running for a minute already, in `workspaces` workspaces, as rows. */
async function runningAttempts(db: Knex, n: number, workspaces: number): Promise<void> {
  const region = 'bench-tick';
  const agentWs = await createWorkspace(db, 'bench-agents');
  const agentId = newId('agent');
  await db('agents').insert({ id: agentId, workspace_id: agentWs, name: 'bench', labels: '{}', capabilities: '{}' });
  const ids: string[] = [];
  for (let w = 0; w < workspaces; w++) ids.push((await billedWorkspace(db, 'payg', region)).workspaceId);
  const rows = Array.from({ length: n }, (_, i) => {
    const managed = i % 2 === 0;
    return {
      id: newId('job'),
      workspace_id: ids[i % workspaces],
      type: 'COMMAND',
      command: 'true',
      env: '{}',
      labels: '{}',
      selector: '{}',
      resources: JSON.stringify({ cpu: 2, memoryMb: 4096, gpu: i % 10 === 0 ? 1 : 0 }),
      retry: JSON.stringify({ maxAttempts: 1, backoffSeconds: 10 }),
      timeout_seconds: 86_400,
      state: 'RUNNING',
      workflow_started: true,
      attempt: 1,
      agent_id: agentId,
      pool: managed ? 'managed' : 'self',
      region: managed ? region : null,
      created_at: new Date(),
      available_at: new Date(),
    };
  });
  for (let i = 0; i < n; i += 500) await db('jobs').insert(rows.slice(i, i + 500));
  const attempts = rows.map((j) => ({
    lease_id: newId('lease'),
    job_id: j.id,
    attempt: 1,
    agent_id: agentId,
    assigned_at: db.raw("now() - interval '1 minute'"),
  }));
  for (let i = 0; i < n; i += 500) await db('job_attempts').insert(attempts.slice(i, i + 500));
}

runBench(async (stack: BenchStack) => {
  const jobs = option('jobs', 300);
  const concurrency = option('concurrency', 8);
  const rounds = option('rounds', 3);
  const attempts = option('attempts', 10_000);
  const tickCount = option('ticks', 3);
  const api = apiClient(stack.url);
  const db = stack.db;
  const { key, workspaceId } = await billedWorkspace(db, 'payg', 'bench-nobody');
  const managed = { type: 'COMMAND', command: 'true', pool: 'managed', timeoutSeconds: 600 };
  const self = { type: 'COMMAND', command: 'true', timeoutSeconds: 600, selector: { nobody: 'takes this' } };
  const reservations = () =>
    db('billing_reservations')
      .where({ workspace_id: workspaceId })
      .count<{ n: string }[]>('* as n')
      .then((r) => Number(r[0].n));

  async function round(withGate: boolean) {
    const before = await reservations();
    const latencies: number[] = [];
    const wall = await runPool(jobs, concurrency, async () => {
      const t = nowMs();
      await api.call('/compute/jobs/submit', withGate ? managed : self, key);
      latencies.push(nowMs() - t);
    });
    // The switch must be what it says: every gated submit reserved, no other did.
    const made = (await reservations()) - before;
    if (made !== (withGate ? jobs : 0))
      throw new Error(`${made} reservations in a ${withGate ? 'gated' : 'self'} round`);
    return { rate: (jobs / wall) * 1000, p50: summarize(latencies).p50 };
  }

  say('the credit gate on a managed submit:');
  await round(true);
  await round(false);
  const rates = { with: [] as number[], without: [] as number[] };
  const p50s = { with: [] as number[], without: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    for (const withGate of r % 2 === 0 ? [true, false] : [false, true]) {
      const got = await round(withGate);
      (withGate ? rates.with : rates.without).push(got.rate);
      (withGate ? p50s.with : p50s.without).push(got.p50);
      say(
        `  round ${r + 1} ${withGate ? 'managed (gated)' : 'self (no gate) '}: ${got.rate.toFixed(0)} submits/s, p50 ${ms(got.p50)} ms`,
      );
    }
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  const rateRatio = mean(rates.with) / mean(rates.without);
  say(
    `  gated ${mean(rates.with).toFixed(0)}/s p50 ${ms(mean(p50s.with))} ms; no gate ${mean(rates.without).toFixed(0)}/s p50 ${ms(mean(p50s.without))} ms: ratio ${rateRatio.toFixed(2)} (target ≥ 0.9)`,
  );

  say(`a meter tick with ${attempts} attempts running (100 workspaces, half managed):`);
  // The in-process worker's schedule ticks too; it meters the same rows, and each window once.
  await runningAttempts(db, attempts, 100);
  const durations: number[] = [];
  const start = Date.now();
  for (let t = 1; t <= tickCount; t++) {
    const t0 = nowMs();
    const report = await meterTick(db, new Date(start + t * TICK_SECONDS * 1000), { cancelGraceSeconds: 30 });
    durations.push(nowMs() - t0);
    say(`  tick ${t}: ${report.entries} entries in ${ms(durations[t - 1])} ms`);
    if (report.entries < attempts) throw new Error(`the tick metered ${report.entries} of ${attempts} attempts`);
  }
  const tickMs = mean(durations);
  const fraction = tickMs / (TICK_SECONDS * 1000);
  say(`  mean ${ms(tickMs)} ms: ${(fraction * 100).toFixed(2)} % of a ${TICK_SECONDS} s tick (target < 10 %)`);
  return `billing ratio_gated_submit_rate=${rateRatio.toFixed(2)} tick_ms_at_${attempts}=${tickMs.toFixed(0)} tick_fraction=${fraction.toFixed(4)}`;
});
