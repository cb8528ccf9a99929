import assert from 'node:assert/strict';
import { waitFor } from '../support/agents';
import { registerManaged } from '../support/managed-pool';
import { testEnv } from '../support/env';
import { heartbeatInBackground, ok, pollOne, post, submit } from '../support/http';
import { v0, v0ok } from '../support/v0';
import { accountFigures, gatedWorkspace, jobCount } from '../support/billing';

// Caps that hold and the credit gate (CONTRACT §9), on the real stack with the meter ticking every
// 2 s. Managed jobs here wait in a region of their own that no agent serves, unless a test
// registers a managed agent there.

const db = () => testEnv().db;

describe('the credit gate', () => {
  it('accepts exactly as many concurrent managed submits as the credit covers, in one statement each (200 at once, credit for 10)', async function () {
    this.timeout(60_000);
    // payg: (1 CPU × 0.000024 + 1 GB × 0.0000025) × 100 s = 0.00265 per job; credit for 10.
    const w = await gatedWorkspace('payg', '0.0265');
    const manifest = { pool: 'managed', timeoutSeconds: 100, command: 'true' };
    // The API's statements that write this workspace's jobs or reservations, as the driver sends them.
    const writes: string[] = [];
    const api = testEnv().service.db;
    const onQuery = (q: { sql: string; bindings?: unknown[] }) => {
      if (/insert into "?(jobs|billing_reservations)"?/i.test(q.sql) && q.bindings?.includes(w.workspaceId))
        writes.push(q.sql);
    };
    api.on('query', onQuery);
    const replies = await Promise.all(
      Array.from({ length: 200 }, () => post('/compute/jobs/submit', { type: 'COMMAND', ...manifest }, w.key)),
    ).finally(() => api.off('query', onQuery));
    // One statement per submit inserts the job and reserves its worst case together (or refuses both).
    assert.equal(writes.length, 200, `statements: ${writes.length}`);
    assert.ok(
      writes.every((sql) => /insert into "?jobs"?/i.test(sql) && /insert into "?billing_reservations"?/i.test(sql)),
      writes.find((sql) => !/billing_reservations/i.test(sql)),
    );
    const accepted = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status === 402);
    assert.equal(accepted.length, 10, JSON.stringify(replies.find((r) => r.status !== 200 && r.status !== 402)?.body));
    assert.equal(refused.length, 190);
    // Surface A's envelope, with the figures.
    const last = refused[refused.length - 1].body;
    assert.equal(last.status, 'ERROR');
    assert.equal(last.code, 'resource.limit_reached');
    assert.deepEqual(last.details, { spentUsd: 0, reservedUsd: 0.0265, requiredUsd: 0.00265, creditUsd: 0.0265 });
    assert.equal('payload' in last, false);
    const held = await accountFigures(w.workspaceId);
    assert.deepEqual([Number(held.spent), Number(held.reserved)], [0, 0.0265], 'exactly the ten worst cases reserved');
    const rows = await db()('jobs').where({ workspace_id: w.workspaceId }).count<{ n: string }[]>('* as n');
    assert.equal(Number(rows[0].n), 10, 'a refused submit leaves no row');

    // Surface B answers the same refusal as a problem.
    const b = await v0('POST', '/jobs', { token: w.token, body: { type: 'COMMAND', ...manifest } });
    assert.equal(b.status, 402, JSON.stringify(b.body));
    assert.equal(b.body.code, 'resource.limit_reached');
    assert.equal(b.body.details.creditUsd, 0.0265);

    // Jobs for the workspace's own agents are never refused for credit.
    const self = await submit(w.key, { timeoutSeconds: 86_400, resources: { cpu: 64, gpu: 8 } });
    assert.ok(self.job_id);

    // A job that ends lets its reservation go, and the next one fits.
    await ok('/compute/jobs/cancel', { job_id: accepted[0].body.payload.job_id }, w.key);
    await waitFor(
      'the reservation released',
      async () => Number((await accountFigures(w.workspaceId)).reserved) === 0.02385,
    );
    assert.equal((await post('/compute/jobs/submit', { type: 'COMMAND', ...manifest }, w.key)).status, 200);
  });

  it('hobby has no managed pool (403 billing.not_available on both surfaces), and payg is gated at a zero credit', async function () {
    this.timeout(30_000);
    const hobby = await gatedWorkspace('hobby');
    const onA = await post(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: 'true', pool: 'managed', timeoutSeconds: 86_400 },
      hobby.key,
    );
    assert.deepEqual(
      [onA.status, onA.body.code, onA.body.details],
      [403, 'billing.not_available', { plan: 'hobby' }],
      JSON.stringify(onA.body),
    );
    const onB = await v0('POST', '/jobs', {
      token: hobby.token,
      body: { type: 'COMMAND', command: 'true', pool: 'managed' },
    });
    assert.deepEqual([onB.status, onB.body.code], [403, 'billing.not_available'], JSON.stringify(onB.body));
    assert.equal(await jobCount(hobby.workspaceId), 0, 'nothing written');
    assert.equal((await accountFigures(hobby.workspaceId)).reserved, '0');
    assert.ok((await submit(hobby.key, {})).job_id, 'its own agents still run its jobs');

    const broke = await gatedWorkspace('payg', '0');
    assert.equal(
      (await post('/compute/jobs/submit', { type: 'COMMAND', command: 'true', pool: 'managed' }, broke.key)).status,
      402,
    );
    assert.ok((await submit(broke.key, {})).job_id, 'self jobs at a zero credit');
  });

  it('a past_due or canceled subscription gets 402 for managed submits until it is paid', async function () {
    this.timeout(30_000);
    const w = await gatedWorkspace('team');
    for (const status of ['past_due', 'canceled']) {
      await db()('billing_accounts').where({ workspace_id: w.workspaceId }).update({ status });
      const onA = await post('/compute/jobs/submit', { type: 'COMMAND', command: 'true', pool: 'managed' }, w.key);
      assert.deepEqual(
        [onA.status, onA.body.code, onA.body.details],
        [402, 'resource.limit_reached', { plan: 'team', status }],
        JSON.stringify(onA.body),
      );
      const onB = await v0('POST', '/jobs', {
        token: w.token,
        body: { type: 'COMMAND', command: 'true', pool: 'managed' },
      });
      assert.deepEqual([onB.status, onB.body.code], [402, 'resource.limit_reached'], JSON.stringify(onB.body));
      assert.ok((await submit(w.key, {})).job_id, 'self jobs go on');
    }
    assert.equal(await jobCount(w.workspaceId, 'managed'), 0, 'no managed row written');
    await db()('billing_accounts').where({ workspace_id: w.workspaceId }).update({ status: 'active' });
    assert.ok((await submit(w.key, { pool: 'managed' })).job_id, 'paid, it is taken again');
  });
});

describe('caps', () => {
  it('start a managed job again only inside its reservation: a requeue the credit no longer covers ends billing.hard_cap, one it covers is topped up', async function () {
    this.timeout(60_000);
    const attemptUsd = 0.00265; // 1 CPU and 1024 MB for 100 s on payg: its one attempt's worst case
    for (const [credit, covered] of [
      ['0.00265', false],
      ['0.0053', true],
    ] as const) {
      const w = await gatedWorkspace('payg', credit);
      const lost = await registerManaged(undefined, w.region, {}, 'lost');
      const job = await submit(w.key, { pool: 'managed', timeoutSeconds: 100 });
      assert.equal((await pollOne(lost, 5))!.job_id, job.job_id);
      // It never heartbeats: the agent is lost, and the service starts the job again, not its retry policy.
      await waitFor(
        'the loss to requeue it',
        async () => (await db()('jobs').where({ id: job.job_id }).first('attempt')).attempt === 2,
        20_000,
      );
      const other = await registerManaged(undefined, w.region, {}, 'other');
      const again = await pollOne(other, 3);
      if (!covered) {
        assert.equal(again, undefined, 'not started outside its reservation');
        await waitFor(
          'it to end billing.hard_cap',
          async () => {
            const row = await db()('jobs').where({ id: job.job_id }).first('state', 'failure_reason');
            return row.state === 'CANCELLED' && row.failure_reason === 'billing.hard_cap';
          },
          20_000,
        );
        const left = await accountFigures(w.workspaceId);
        assert.ok(Number(left.spent) + Number(left.reserved) <= Number(credit), JSON.stringify(left));
      } else {
        assert.deepEqual(
          [again?.job_id, again?.attempt],
          [job.job_id, 2],
          'started again, inside a reservation topped up',
        );
        const held = await db()('billing_reservations')
          .where({ job_id: job.job_id })
          .first(db().raw('amount_usd::float8 AS amount'), db().raw('consumed_usd::float8 AS consumed'));
        assert.ok(
          held.amount - held.consumed >= attemptUsd - 1e-9,
          `one attempt's worst case left: ${JSON.stringify(held)}`,
        );
        await post('/compute/jobs/cancel', { job_id: job.job_id }, w.key);
      }
    }
  });

  it('count every live managed job, reserved or not: spend past the cap stops one the gate never reserved', async function () {
    this.timeout(60_000);
    const w = await gatedWorkspace('team');
    const agent = await registerManaged(undefined, w.region);
    const job = await submit(w.key, { pool: 'managed', timeoutSeconds: 100 });
    const held = (await pollOne(agent, 5))!;
    assert.equal(held.job_id, job.job_id);
    const beats = heartbeatInBackground(agent, [held.job_id]);
    try {
      // As a job submitted before its workspace was billed: no reservation holds it.
      assert.equal(await db()('billing_reservations').where({ job_id: job.job_id }).delete(), 1);
      // A cap its metered spend passes within a tick or two (team: about 0.000022 USD a second).
      const patched = await v0('PATCH', '/billing/limits', { token: w.token, body: { hardCapUsd: 0.00001 } });
      assert.equal(patched.status, 202, JSON.stringify(patched.body));
      await waitFor(
        'the tick to stop it',
        async () => {
          const row = await db()('jobs').where({ id: job.job_id }).first('state', 'failure_reason');
          return row.failure_reason === 'billing.hard_cap' && ['CANCELLING', 'CANCELLED'].includes(row.state);
        },
        30_000,
      );
    } finally {
      await beats.stop();
    }
  });

  it('a lowered hard cap stops the newest managed jobs at the next tick (billing.hard_cap, in the job and its webhooks) until the rest fit', async function () {
    this.timeout(60_000);
    // team: postpaid, bounded by its hard cap alone; (0.00002 + 0.000002) × 100 s = 0.0022 per job.
    const w = await gatedWorkspace('team');
    // An endpoint, so the jobs' events are kept (its deliveries fail; the events are what is read).
    await v0ok('POST', '/webhooks', { token: w.token, body: { url: 'http://127.0.0.1:9/hooks' } });
    const agent = await registerManaged(undefined, w.region);
    const queued: string[] = [];
    for (let i = 0; i < 4; i++)
      queued.push(
        (await submit(w.key, { pool: 'managed', timeoutSeconds: 100, selector: { nobody: 'takes this' } })).job_id,
      );
    const running = await submit(w.key, { pool: 'managed', timeoutSeconds: 100 });
    const held = (await pollOne(agent, 5))!;
    assert.equal(held.job_id, running.job_id);
    const beats = heartbeatInBackground(agent, [held.job_id]);
    try {
      // Room for two (0.0044) and up to 0.0011 spent, not for three: the running job is metered until
      // its stop ends it, and on a loaded machine that takes seconds (0.000022 USD each), which a
      // thinner margin turned into a later tick stopping a third.
      const patched = await v0('PATCH', '/billing/limits', {
        token: w.token,
        body: { hardCapUsd: 0.0055, softCapUsd: 0.004 },
      });
      assert.equal(patched.status, 202, JSON.stringify(patched.body));
      assert.equal(patched.body.hardCapUsd, null, 'not in force before the tick');
      assert.deepEqual([patched.body.pending.hardCapUsd, patched.body.pending.softCapUsd], [0.0055, 0.004]);

      const newest = [running.job_id, queued[3], queued[2]];
      await waitFor(
        'the tick to stop the newest three',
        async () => {
          const rows = await db()('jobs').whereIn('id', newest).select('state', 'failure_reason');
          return rows.every(
            (r) => r.failure_reason === 'billing.hard_cap' && ['CANCELLING', 'CANCELLED'].includes(r.state),
          );
        },
        20_000,
      );
      const kept = await db()('jobs').whereIn('id', queued.slice(0, 2)).pluck('state');
      assert.deepEqual(kept, ['QUEUED', 'QUEUED'], 'the oldest two fit and stay');
      const limits = await v0ok('GET', '/billing/limits', { token: w.token });
      assert.deepEqual(limits, { softCapUsd: 0.004, hardCapUsd: 0.0055, pending: null });

      // The running one: its agent is told to stop, and it ends CANCELLED for the same reason.
      await waitFor(
        'the running job cancelled',
        async () => (await db()('jobs').where({ id: running.job_id }).first('state')).state === 'CANCELLED',
        20_000,
      );
      const job = await v0ok('GET', `/jobs/${running.job_id}`, { token: w.token });
      assert.deepEqual([job.state, job.failureReason], ['CANCELLED', 'billing.hard_cap']);
      const events = await db()('webhook_events')
        .where({ job_id: running.job_id })
        .orderBy('seq')
        .select('type', 'data');
      const terminal = events.find((e) => e.type === 'job.terminal');
      assert.deepEqual(
        [terminal?.data.job.state, terminal?.data.job.failure_reason],
        ['CANCELLED', 'billing.hard_cap'],
        JSON.stringify(events.map((e) => e.type)),
      );
    } finally {
      await beats.stop();
    }
    // What is left reserved fits the cap, and a new managed job would not.
    const left = await accountFigures(w.workspaceId);
    assert.ok(Number(left.spent) + Number(left.reserved) <= 0.0055, JSON.stringify(left));
    const refused = await post(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: 'true', pool: 'managed', timeoutSeconds: 100 },
      w.key,
    );
    assert.equal(
      refused.status,
      402,
      `${JSON.stringify(await accountFigures(w.workspaceId))}; jobs: ${JSON.stringify(
        await db()('jobs').where({ workspace_id: w.workspaceId }).select('id', 'state', 'failure_reason'),
      )}`,
    );
    const audit = await db()('audit_log')
      .where({ workspace_id: w.workspaceId })
      .whereIn('action', ['billing.limits_update', 'billing.limits_applied'])
      .pluck('action');
    assert.deepEqual(audit.sort(), ['billing.limits_applied', 'billing.limits_update']);
  });
});
