import assert from 'node:assert/strict';
import { setBilling } from '../../src/billing/subscription';
import { waitFor } from '../support/agents';
import { registerManaged } from '../support/managed-pool';
import { cliUser } from '../support/cli';
import { testEnv } from '../support/env';
import { heartbeatInBackground, ok, pollOne, post, registerNode, resultOf, sleep, submit } from '../support/http';
import { v0, v0ok } from '../support/v0';
import { OPERATOR, accountFigures, gatedWorkspace, meterTicks } from '../support/billing';

// The caps' record and refusals (CONTRACT §9): a soft cap noted once per period, bad caps and
// windows refused, the CLI's limits and usage, a manual retry gated again; on the real stack with
// the meter ticking every 2 s (test/integration/billing-caps.test.ts has the gate and the stops).

const db = () => testEnv().db;

describe('caps: their record, refusals and retries', () => {
  it('records a soft cap crossed once per period, actor system, and the usage record matches the ledger figure by figure', async function () {
    this.timeout(60_000);
    const w = await gatedWorkspace('payg', '10');
    const agent = await registerManaged(undefined, w.region);
    await v0ok('PATCH', '/billing/limits', { token: w.token, body: { softCapUsd: 0.00001 }, status: 202 });
    // A managed job running about 3 s (~0.00008 at payg), and a self job beside it.
    const managed = await submit(w.key, { pool: 'managed', timeoutSeconds: 60, resources: { cpu: 1, memoryMb: 2048 } });
    const held = (await pollOne(agent, 5))!;
    assert.equal(held.job_id, managed.job_id);
    const node = await registerNode(w.key);
    await submit(w.key, { timeoutSeconds: 60 });
    const selfHeld = (await pollOne(node, 5))!;
    const beats = [heartbeatInBackground(agent, [held.job_id]), heartbeatInBackground(node, [selfHeld.job_id])];
    await sleep(3000);
    for (const b of beats) await b.stop();
    await ok('/compute/nodes/result', resultOf(agent, held, 0), agent.nodeKey);
    await ok('/compute/nodes/result', resultOf(node, selfHeld, 0), node.nodeKey);

    const noted = () =>
      db()('audit_log')
        .where({ workspace_id: w.workspaceId, action: 'billing.soft_cap_reached' })
        .select('actor_type', 'details');
    await waitFor('the soft cap noted', async () => (await noted()).length > 0, 15_000);
    await meterTicks(2);
    const entries = await noted();
    assert.equal(entries.length, 1, 'once per period');
    assert.equal(entries[0].actor_type, 'system');
    assert.ok(entries[0].details.spentUsd >= 0.00001);

    const usage = await v0ok('GET', '/billing/usage', { token: w.token });
    const { rows } = await db().raw(
      `SELECT pool, round(sum(cpu_seconds), 6)::float8 AS cpu, round(sum(gpu_seconds), 6)::float8 AS gpu, round(sum(gb_seconds), 6)::float8 AS gb,
              round(sum(amount_usd), 6)::float8 AS usd
       FROM usage_ledger u JOIN billing_accounts b ON b.workspace_id = u.workspace_id
       WHERE u.workspace_id = ? AND u.to_at >= b.current_period_start AND u.to_at < b.current_period_end GROUP BY pool`,
      [w.workspaceId],
    );
    const part = (pool: string) => rows.find((r: { pool: string }) => r.pool === pool);
    const m = part('managed');
    const s = part('self');
    assert.deepEqual(usage.managed, { cpuSeconds: m.cpu, gpuSeconds: m.gpu, gbSeconds: m.gb, estimateUsd: m.usd });
    assert.deepEqual(usage.self, { cpuSeconds: s.cpu, gpuSeconds: s.gpu, gbSeconds: s.gb, estimateUsd: 0 });
    assert.ok(m.cpu >= 3 && m.gb === m.cpu * 2, JSON.stringify(m));
    assert.ok(s.cpu >= 3 && s.usd === 0);
    assert.equal(usage.cpuSeconds, Number((m.cpu + s.cpu).toFixed(6)));
    assert.equal(usage.estimateUsd, m.usd);
    assert.ok(m.usd > 0.00007 && m.usd < 0.001, `${m.usd}`);
    // The period's spend is the ledger's managed amount, exactly.
    const { rows: spent } = await db().raw(
      `SELECT b.spent_usd = (SELECT sum(amount_usd) FROM usage_ledger u WHERE u.workspace_id = b.workspace_id AND u.period_start = b.current_period_start) AS exact
       FROM billing_accounts b WHERE b.workspace_id = ?`,
      [w.workspaceId],
    );
    assert.equal(spent[0].exact, true);
  });

  it('refuses bad caps and windows with the fields named, changing nothing', async function () {
    this.timeout(30_000);
    const w = await gatedWorkspace('payg', '1');
    for (const body of [
      { hardCapUsd: -1 },
      { hardCapUsd: 1.1234567 },
      { softCapUsd: 5, hardCapUsd: 2 },
      {},
      { hardCapUsd: 5, extra: 1 },
      { hardCapUsd: '5' },
    ]) {
      const reply = await v0('PATCH', '/billing/limits', { token: w.token, body });
      assert.equal(reply.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.code, 'request.invalid');
    }
    assert.deepEqual(
      await v0ok('GET', '/billing/limits', { token: w.token }),
      { softCapUsd: null, hardCapUsd: null, pending: null },
      'nothing half-written',
    );
    const window = await v0('GET', '/billing/usage?windowStart=2026-02-01T00:00:00Z&windowEnd=2026-01-01T00:00:00Z', {
      token: w.token,
    });
    assert.equal(window.status, 400);
    assert.equal(window.body.errors?.[0]?.field ?? window.body.details?.fields?.[0]?.path, 'windowEnd');
    const empty = await v0ok('GET', '/billing/usage?windowStart=2020-01-01T00:00:00Z&windowEnd=2020-02-01T00:00:00Z', {
      token: w.token,
    });
    assert.deepEqual(empty, {
      windowStart: '2020-01-01T00:00:00.000Z',
      windowEnd: '2020-02-01T00:00:00.000Z',
      cpuSeconds: 0,
      gpuSeconds: 0,
      gbSeconds: 0,
      estimateUsd: 0,
      managed: { cpuSeconds: 0, gpuSeconds: 0, gbSeconds: 0, estimateUsd: 0 },
      self: { cpuSeconds: 0, gpuSeconds: 0, gbSeconds: 0, estimateUsd: 0 },
    });
    // Clearing a cap is null.
    await v0ok('PATCH', '/billing/limits', { token: w.token, body: { hardCapUsd: 3 }, status: 202 });
    const cleared = await v0ok('PATCH', '/billing/limits', { token: w.token, body: { hardCapUsd: null }, status: 202 });
    assert.equal(cleared.pending.hardCapUsd, null);
  });

  it('compute billing limits and usage: read, ask for new caps, a typo refused in one line', async function () {
    this.timeout(60_000);
    const me = await cliUser();
    await setBilling(db(), { workspaceId: me.session.workspaceId, plan: 'payg', creditUsd: '5', actor: OPERATOR });
    assert.match(await me.ok('billing', 'limits'), /^soft cap\s+none\nhard cap\s+none\n$/);
    const asked = await me.succeed('billing', 'limits', '--hard', '4.5', '--soft', 'none');
    assert.match(asked.stdout, /hard cap\s+none\npending\s+soft none, hard 4.5 USD/);
    assert.match(asked.stderr, /the next meter tick applies it/);
    await waitFor(
      'the tick to apply it',
      async () => /hard cap\s+4.5 USD/.test(await me.ok('billing', 'limits')),
      15_000,
    );
    const typo = await me.run('billing', 'limits', '--hard', '4.5000001');
    assert.notEqual(typo.code, 0);
    assert.match(typo.stderr, /more than 6 decimals/);
    assert.equal(typo.stderr.trim().split('\n').length, 1, typo.stderr);
    const usage = JSON.parse(await me.ok('billing', 'usage', '--json'));
    assert.deepEqual(Object.keys(usage).sort(), [
      'cpuSeconds',
      'estimateUsd',
      'gbSeconds',
      'gpuSeconds',
      'managed',
      'self',
      'windowEnd',
      'windowStart',
    ]);
    assert.match(
      await me.ok('billing', 'usage'),
      /^POOL\s+CPU-SECONDS\s+GPU-SECONDS\s+GB-SECONDS\s+USD\nmanaged\s+0\s+0\s+0\s+0\.000000\n/,
    );
  });

  it('a manual retry of a managed job passes the gate again', async function () {
    this.timeout(60_000);
    const w = await gatedWorkspace('payg', '0.003');
    const agent = await registerManaged(undefined, w.region);
    const job = await submit(w.key, { pool: 'managed', timeoutSeconds: 100 });
    const held = (await pollOne(agent, 5))!;
    await ok('/compute/nodes/result', resultOf(agent, held, 1), agent.nodeKey);
    await waitFor(
      'failed, its reservation released',
      async () => Number((await accountFigures(w.workspaceId)).reserved) === 0,
    );
    await setBilling(db(), { workspaceId: w.workspaceId, creditUsd: '0.001', actor: OPERATOR });
    const refused = await post('/compute/jobs/retry', { job_id: job.job_id }, w.key);
    assert.equal(refused.status, 402, JSON.stringify(refused.body));
    assert.equal((await db()('jobs').where({ id: job.job_id }).first('state')).state, 'FAILED', 'not retried');
    await setBilling(db(), { workspaceId: w.workspaceId, creditUsd: '1', actor: OPERATOR });
    assert.equal((await post('/compute/jobs/retry', { job_id: job.job_id }, w.key)).status, 200);
    assert.equal(Number((await accountFigures(w.workspaceId)).reserved), 0.00265);
  });
});
