import assert from 'node:assert/strict';
import { parseUsdAmount, trimDecimal, usdNumber } from '../../src/billing/money';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import { credentialHeaders, ok, post } from '../support/http';
import { team } from '../support/team';
import { burstOfReads, v0 } from '../support/v0';

const PRICES = {
  hobby: { cpuSecondUsd: 0, gpuSecondUsd: 0, gbSecondUsd: 0 },
  payg: { cpuSecondUsd: 0.000024, gpuSecondUsd: 0.0006, gbSecondUsd: 0.0000025 },
  team: { cpuSecondUsd: 0.00002, gpuSecondUsd: 0.0005, gbSecondUsd: 0.000002 },
  enterprise: { cpuSecondUsd: 0.00002, gpuSecondUsd: 0.0005, gbSecondUsd: 0.000002 },
};

/** The workspace's billing.set entries, oldest first. */
const billingEntries = (workspaceId: string) =>
  testEnv().db('audit_log').where({ workspace_id: workspaceId, action: 'billing.set' }).orderBy('id');

describe('plans and prices', () => {
  const apiWith = apisPerTest();

  it('lists the four plans with their exact prices, held as numeric in the database', async () => {
    const s = await login();
    const reply = await fetch(`${testEnv().url}/api/compute/billing/plans/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
      body: '{}',
    });
    assert.equal(reply.status, 200);
    const text = await reply.text();
    // The decimals as written on the wire, not only as a double reads them back.
    assert.match(text, /"cpuSecondUsd":0\.000024,"gpuSecondUsd":0\.0006,"gbSecondUsd":0\.0000025/);
    const { plans } = JSON.parse(text).payload;
    assert.deepEqual(
      plans.map((p: Record<string, unknown>) => [p.id, p.prices, p.requestsPerSecond, p.burst, p.invoices]),
      [
        ['hobby', PRICES.hobby, null, null, false],
        ['payg', PRICES.payg, 100, 200, true],
        ['team', PRICES.team, 1000, 2000, true],
        ['enterprise', PRICES.enterprise, null, null, false],
      ],
    );
    for (const p of plans) assert.ok(typeof p.name === 'string' && p.name.length > 0);

    const columns = await testEnv()
      .db('information_schema.columns')
      .where({ table_schema: 'public' })
      .whereIn('table_name', [
        'billing_plans',
        'billing_accounts',
        'usage_ledger',
        'billing_reservations',
        'credit_ledger',
        'credit_grants',
        'invoices',
        'invoice_lines',
      ])
      .whereLike('column_name', '%_usd')
      .select('table_name', 'column_name', 'data_type', 'numeric_scale');
    const typed = columns.map((c) => `${c.table_name}.${c.column_name} ${c.data_type}(${c.numeric_scale})`);
    // Every amount of money is a numeric, never a float; prices with a fixed scale. The credit's
    // balance is exact at any scale (draws carry the usage's decimals).
    assert.deepEqual(
      columns.filter((c) => c.data_type !== 'numeric'),
      [],
    );
    for (const fixed of [
      'billing_plans.cpu_second_usd numeric(12)',
      'billing_plans.gb_second_usd numeric(12)',
      'billing_plans.gpu_second_usd numeric(12)',
    ]) {
      assert.ok(typed.includes(fixed), `${fixed} in ${typed.join(', ')}`);
    }
    assert.ok(typed.length >= 10, 'the ledger, reservations and caps are read too');
  });

  it("reads the workspace's subscription: a new one is hobby, active, this UTC month, no credit; an operator's change shows at once, audited", async () => {
    const t = await team();
    // A member's key of the team's workspace, minted by the member's session acting there.
    const asMember = { 'X-Compute-Workspace': t.ws.id };
    const read = async (credential: string) => {
      const reply = await fetch(`${testEnv().url}/api/compute/billing/subscription`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          ...credentialHeaders(credential),
          ...(credential.startsWith('eyJ') ? asMember : {}),
        },
        body: '{}',
      });
      assert.equal(reply.status, 200);
      return reply.text();
    };
    const minted = await fetch(`${testEnv().url}/api/compute/api-keys/create`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...credentialHeaders(t.member.token), ...asMember },
      body: JSON.stringify({ name: 'member' }),
    }).then((r) => r.json() as Promise<{ payload: { key: string } }>);
    const memberKey: string = minted.payload.key;

    const now = new Date();
    const fresh = JSON.parse(await read(t.member.token)).payload;
    assert.deepEqual(fresh, {
      plan: 'hobby',
      status: 'active',
      currentPeriodStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
      currentPeriodEnd: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
      creditUsd: 0,
    });

    const set = await compute([
      'admin',
      'billing',
      'set',
      '--workspace',
      t.ws.id,
      '--plan',
      'payg',
      '--credit-usd',
      '1250.123456',
    ]);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, new RegExp(`${t.ws.id} is on the payg plan with 1250.123456 USD of prepaid credit`));
    // A member's session in the workspace and a member's API key read the same record.
    for (const credential of [t.member.token, memberKey]) {
      const text = await read(credential);
      assert.match(text, /"creditUsd":1250\.123456\b/);
      assert.equal(JSON.parse(text).payload.plan, 'payg');
    }
    const stored = await testEnv().db('billing_accounts').where({ workspace_id: t.ws.id }).first();
    assert.equal(stored.credit_usd, '1250.123456', 'kept as the exact decimal');

    // The plan alone: the credit stays; the credit alone: the plan stays.
    assert.equal((await compute(['admin', 'billing', 'set', '--workspace', t.ws.id, '--plan', 'team'])).code, 0);
    assert.equal((await compute(['admin', 'billing', 'set', '--workspace', t.ws.id, '--credit-usd', '0.5'])).code, 0);
    const last = await ok('/compute/billing/subscription', {}, memberKey);
    assert.equal(last.plan, 'team');
    assert.equal(last.creditUsd, 0.5);
    // And a member's CLI shows the same.
    const shown = await compute(['billing', 'subscription'], { env: { COMPUTE_API_KEY: memberKey } });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /^plan +team \(active\)$/m);
    assert.match(shown.stdout, /credit +0\.5 USD/);
    const plans = await compute(['billing', 'plans'], { env: { COMPUTE_API_KEY: memberKey } });
    assert.equal(plans.code, 0, plans.stderr);
    assert.match(plans.stdout, /^payg +Pay as you go +0\.000024 +0\.0006 +0\.0000025 +100\/s, burst 200 +yes$/m);

    const entries = await billingEntries(t.ws.id);
    assert.deepEqual(
      entries.map((e) => [e.actor_type, e.actor_id, e.target_type, e.target_id, e.outcome, e.details]),
      [
        [
          'system',
          'operator',
          'workspace',
          t.ws.id,
          'success',
          { plan: { old: 'hobby', new: 'payg' }, creditUsd: { old: '0', new: '1250.123456' } },
        ],
        [
          'system',
          'operator',
          'workspace',
          t.ws.id,
          'success',
          { plan: { old: 'payg', new: 'team' }, creditUsd: { old: '1250.123456', new: '1250.123456' } },
        ],
        [
          'system',
          'operator',
          'workspace',
          t.ws.id,
          'success',
          { plan: { old: 'team', new: 'team' }, creditUsd: { old: '1250.123456', new: '0.5' } },
        ],
      ],
    );
    // The owner reads them in the workspace's audit log.
    const audit = await v0('GET', `/workspaces/${t.ws.id}/audit?action=billing.set`, { token: t.owner.token });
    assert.equal(audit.status, 200, JSON.stringify(audit.body));
    assert.equal(audit.body.items.length, 3);
  });

  it('refuses a bad credit, plan or workspace with a plain error and changes nothing', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const cases: Array<[string[], RegExp]> = [
      [['--credit-usd', '-5'], /"-5" must not be negative/],
      [['--credit-usd', 'abc'], /"abc" is not a decimal amount/],
      [['--credit-usd', '1.1234567'], /"1.1234567" has more than 6 decimals/],
      [['--credit-usd', '1e3'], /"1e3" is not a decimal amount/],
      [['--credit-usd', '1000000000'], /is more than 999999999.999999/],
      [['--plan', 'gold'], /unknown plan "gold": one of hobby, payg, team, enterprise/],
      [[], /nothing to set/],
    ];
    for (const [args, message] of cases) {
      const run = await compute(['admin', 'billing', 'set', '--workspace', ws, ...args]);
      assert.notEqual(run.code, 0, args.join(' '));
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack');
    }
    const missing = await compute(['admin', 'billing', 'set', '--workspace', 'ws_nope', '--plan', 'payg']);
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /workspace ws_nope not found/);

    assert.deepEqual(await billingEntries(ws), []);
    const sub = await ok('/compute/billing/subscription', {}, s.token);
    assert.equal(sub.plan, 'hobby');
    assert.equal(sub.creditUsd, 0);
  });

  it('answers 401 in the envelope without a credential, and 400 to fields it does not take', async () => {
    for (const path of ['/compute/billing/plans/list', '/compute/billing/subscription']) {
      const reply = await post(path, {});
      assert.equal(reply.status, 401);
      assert.equal(reply.body.status, 'ERROR');
      assert.equal(reply.body.code, 'auth.unauthenticated');
      assert.equal(reply.body.payload, undefined);
    }
    const s = await login();
    const bad = await post('/compute/billing/subscription', { workspace: 'ws_other' }, s.token);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'request.invalid');
  });

  it("/v0's budget follows the plan at once: payg refuses past its burst, back on hobby nothing is refused", async function () {
    this.timeout(60_000);
    const s = await login();
    const burst = async (n: number) =>
      (await Promise.all(Array.from({ length: n }, () => v0('GET', '/tokens', { token: s.token })))).map(
        (r) => r.status,
      );

    assert.equal(
      (await compute(['admin', 'billing', 'set', '--workspace', s.user.workspaceId, '--plan', 'payg'])).code,
      0,
    );
    // Batches of 50 at once until the first refusal: faster than 100/s, so one must come (at the
    // latest past 1000 in ten seconds), and not before the burst of 200 has gone through.
    let passed = 0;
    let refused = 0;
    while (!refused && passed < 1500) {
      const batch = await burst(50);
      assert.deepEqual(
        batch.filter((st) => st !== 200 && st !== 429),
        [],
      );
      refused = batch.filter((st) => st === 429).length;
      passed += batch.length - refused;
    }
    assert.ok(refused > 0, `no refusal after ${passed} requests`);
    assert.ok(passed >= 200, `refused after ${passed} passed: the burst of 200 goes through`);

    assert.equal(
      (await compute(['admin', 'billing', 'set', '--workspace', s.user.workspaceId, '--plan', 'hobby'])).code,
      0,
    );
    assert.deepEqual([...new Set(await burst(300))], [200]);
  });

  it("/v0's budget is the plan row's, not a figure in the code: a payg row of 3/s and burst 5 lets 5 a second and 30 in ten through", async function () {
    this.timeout(60_000);
    const db = testEnv().db;
    const s = await login();
    assert.equal(
      (await compute(['admin', 'billing', 'set', '--workspace', s.user.workspaceId, '--plan', 'payg'])).code,
      0,
    );
    const original = await db('billing_plans').where({ id: 'payg' }).first('requests_per_second', 'burst');
    await db('billing_plans').where({ id: 'payg' }).update({ requests_per_second: 3, burst: 5 });
    try {
      // An instance started now reads the plans afresh.
      const api = await apiWith();
      // 5 in any one second and 30 in ten, on one instance exactly.
      const b = await burstOfReads(40, { token: s.token, baseUrls: [api.url] });
      assert.equal(b.policy, '5;w=1, 30;w=10');
      assert.ok(b.passed >= 5 && b.passed <= b.allowedAtMost, `${b.passed} passed in ${b.ms} ms`);
      assert.equal(b.passed + b.refused.length, 40, b.replies.map((r) => r.status).join(' '));
    } finally {
      await db('billing_plans').where({ id: 'payg' }).update(original);
    }
  });

  it("/v0's budget on enterprise is the workspace's own setting", async () => {
    const s = await login();
    const set = await compute(['admin', 'set-plan', s.user.workspaceId, 'enterprise', '--rps', '3', '--burst', '5']);
    assert.equal(set.code, 0, set.stderr);
    const b = await burstOfReads(40, { token: s.token });
    assert.equal(b.policy, '5;w=1, 30;w=10');
    assert.ok(b.passed >= 5 && b.passed <= b.allowedAtMost, `${b.passed} passed in ${b.ms} ms`);
    assert.equal(b.passed + b.refused.length, 40, b.replies.map((r) => r.status).join(' '));
    assert.equal((await ok('/compute/billing/subscription', {}, s.token)).plan, 'enterprise');
  });
});

describe('money as exact decimals', () => {
  it('trims, renders and parses amounts without a float in between', () => {
    assert.equal(trimDecimal('0.000024000000'), '0.000024');
    assert.equal(trimDecimal('25.000000'), '25');
    assert.equal(trimDecimal('0.000000'), '0');
    assert.equal(trimDecimal('-0012.50'), '-12.5');
    assert.equal(usdNumber('0.000002500000'), 0.0000025);
    assert.equal(JSON.stringify(usdNumber('999999999.999999')), '999999999.999999');
    assert.throws(() => usdNumber('1234567890.1234567'), /more digits/);
    assert.equal(parseUsdAmount('12.50'), '12.5');
    assert.equal(parseUsdAmount('0'), '0');
    assert.equal(parseUsdAmount('0.000001'), '0.000001');
    for (const bad of ['-1', 'abc', '1.1234567', '1e3', '', '.5', '5.', ' ', '0x10', 'Infinity', '1,5'])
      assert.throws(() => parseUsdAmount(bad), RangeError, bad);
  });
});
