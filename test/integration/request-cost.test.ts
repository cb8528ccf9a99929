// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import pg from 'pg';
import { OneTripQuery } from '../../src/db/one-trip';
import { longPollsWaiting } from '../../src/metrics/registry';
import { apisPerTest } from '../support/api-process';
import { testEnv } from '../support/env';
import { newWorkspace, ok, post, registerNode, resultOf, submit } from '../support/http';
import { startTcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/agents';
import { login } from '../support/auth';

/** Every statement an API instance sends while `fn` runs, by the table it names. */
async function statementsDuring(db: Knex, fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onQuery = (q: { sql: string }) => seen.push(q.sql.replace(/\s+/g, ' '));
  db.on('query', onQuery);
  try {
    await fn();
  } finally {
    db.off('query', onQuery);
  }
  return seen;
}
/** The statements of each write sent as one round trip (src/db/one-trip.ts) while `fn` runs, in this process. */
async function oneTripsDuring(fn: () => Promise<void>): Promise<string[][]> {
  const trips: string[][] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
    if (args[0] instanceof OneTripQuery)
      trips.push(
        args[0].steps
          .map(
            (s) =>
              s.statement.statementName ||
              (/\brate_limits\b/.test(s.statement.text)
                ? LEASE
                : /^(BEGIN|COMMIT|SET) ?/.test(s.statement.text)
                  ? s.statement.text.split(' ')[0]
                  : '?'),
          )
          // Leases asked ahead of need ride whatever trip comes (src/db/trip-riders.ts).
          .filter((name) => name !== LEASE),
      );
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  try {
    await fn();
  } finally {
    pg.Client.prototype.query = query;
  }
  return trips;
}
const touching = (statements: string[], table: string) =>
  statements.filter((s) => new RegExp(`\\b${table}\\b`).test(s));

describe('what a request costs: cached credentials, leased budgets, hand-outs remembered', () => {
  const apiWith = apisPerTest();

  it('serves a known key from memory: 100 retrieves send 100 job reads, no key lookup and a few leases', async () => {
    const api = await apiWith();
    const { key } = await newWorkspace();
    const job = await submit(key);
    assert.equal(
      (await post('/compute/jobs/retrieve', { job_id: job.job_id }, key, api.url)).status,
      200,
      'the first request looks the key up',
    );
    const statements = await statementsDuring(api.db, async () => {
      for (let i = 0; i < 100; i++)
        assert.equal((await post('/compute/jobs/retrieve', { job_id: job.job_id }, key, api.url)).status, 200);
    });
    assert.equal(touching(statements, 'jobs').length, 100, statements.join('\n'));
    assert.deepEqual(touching(statements, 'api_keys'), [], 'no key lookup');
    const leases = touching(statements, 'rate_limits').length;
    assert.ok(leases <= 20, `${leases} leases for 100 requests`);
    assert.equal(statements.length, 100 + leases, `nothing else: ${statements.join('\n')}`);
  });

  it('refuses a revoked key on another instance at once, and on an instance whose listener hung once it is found out', async function () {
    this.timeout(30_000);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(testEnv().config.databaseUrl!).port) });
    try {
      const direct = await apiWith();
      const cut = await apiWith({
        DATABASE_URL: testEnv().config.databaseUrl!.replace(/@[^/]+\//, `@${proxy.address}/`),
        NOTIFY_PING_MS: '200',
      });
      const { key } = await newWorkspace();
      const { token } = await login();
      const made = (await post('/compute/api-keys/create', { name: 'cached' }, token)).body.payload;
      for (const api of [direct, cut])
        assert.equal((await post('/compute/jobs/list', {}, made.key, api.url)).status, 200);

      // Revoked through one instance: it refuses the next request at once. PostgreSQL handed the
      // change to the other's listener before the revoke was answered; once that listener has read
      // it (its own marker back, as notifications arrive in commit order) the other refuses too,
      // though it had the key in memory. A request that reaches it before its listener has read
      // the bytes already on the socket is the one window left (an event-loop turn).
      assert.equal((await post('/compute/api-keys/revoke', { id: made.id }, token, direct.url)).status, 200);
      assert.equal((await post('/compute/jobs/list', {}, made.key, direct.url)).status, 401);
      await cut.services!.credentials.settle();
      assert.equal((await post('/compute/jobs/list', {}, made.key, cut.url)).status, 401);

      // A connection to PostgreSQL that hangs without closing delivers no notification: once
      // its ping goes unanswered, the instance stops trusting what it holds in memory.
      assert.equal((await post('/compute/jobs/list', {}, key, cut.url)).status, 200);
      proxy.blackhole();
      await testEnv()
        .db('api_keys')
        .where({ workspace_id: (await keyRow(key)).workspace_id })
        .update({ revoked_at: testEnv().db.fn.now() });
      await waitFor('the hung listener to be found out', async () => !cut.services!.notifier.live, 5_000);
      // Its database is unreachable too, so the honest answer is none (or a 503), never a 200.
      const during = await fetch(`${cut.url}/api/compute/jobs/list`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-API-Key': key },
        body: '{}',
        signal: AbortSignal.timeout(1500),
      }).then(
        (r) => r.status,
        () => 'no answer',
      );
      assert.notEqual(during, 200, 'a key revoked while the listener hung is not served from memory');
      proxy.resume();
      await waitFor('the listener to be back', async () => cut.services!.notifier.live, 15_000);
      // Connections that lost bytes in the hang are replaced first (a 503 meanwhile); a 200 never comes.
      await waitFor(
        'the revoked key to be refused',
        async () => {
          const status = (await post('/compute/jobs/list', {}, key, cut.url)).status;
          assert.notEqual(status, 200, 'the revoked key was let through after the listener came back');
          return status === 401;
        },
        15_000,
      );
    } finally {
      await proxy.close();
    }
  });

  it('lets at most the limit through across two instances under a concurrent burst, short of it by at most one lease', async () => {
    const LIMIT = 200;
    const pair = [
      await apiWith({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }),
      await apiWith({ RATE_LIMIT_PER_MINUTE: String(LIMIT) }),
    ];
    const { key } = await newWorkspace();
    const statuses: number[] = [];
    // 20 clients on each instance, 20 requests each: 800 requests for a budget of 200.
    await Promise.all(
      Array.from({ length: 40 }, async (_, lane) => {
        for (let i = 0; i < 20; i++)
          statuses.push((await post('/compute/jobs/list', {}, key, pair[lane % 2].url)).status);
      }),
    );
    const admitted = statuses.filter((s) => s === 200).length;
    assert.equal(admitted + statuses.filter((s) => s === 429).length, statuses.length, 'only 200 and 429');
    const lease = LIMIT / 20; // the largest lease: 1/20 of the limit
    assert.ok(admitted <= LIMIT, `${admitted} let through, the limit is ${LIMIT}`);
    assert.ok(
      admitted >= LIMIT - lease,
      `${admitted} let through: at most one lease (${lease}) may sit unspent on the other instance`,
    );
  });

  it('refuses from memory: once an instance knows the window is spent, a 429 costs no statement', async () => {
    const api = await apiWith({ RATE_LIMIT_PER_MINUTE: '10' });
    const { key } = await newWorkspace();
    for (let i = 0; i < 10; i++) assert.equal((await post('/compute/jobs/list', {}, key, api.url)).status, 200);
    assert.equal((await post('/compute/jobs/list', {}, key, api.url)).status, 429);
    const statements = await statementsDuring(api.db, async () => {
      for (let i = 0; i < 50; i++) {
        const reply = await post('/compute/jobs/list', {}, key, api.url);
        assert.equal(reply.status, 429);
        assert.ok(Number(reply.headers.get('retry-after')) >= 1);
      }
    });
    assert.deepEqual(statements, [], 'no statement for 50 refusals');
  });
  it("checks a result against the hand-out its instance made, with no read; another instance's lease is read; a forged report is refused either way", async () => {
    const [here, there] = [await apiWith(), await apiWith()];
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const other = await registerNode(key, {}, 'other');
    const agentReads = (statements: string[]) => statements.filter((s) => /\bFROM agents\b/i.test(s)).length;
    for (const [api, reads] of [
      [here, 0],
      [there, 1],
    ] as const) {
      const job = await submit(key);
      const held = (await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey, here.url))
        .jobs[0] as { job_id: string; leaseId: string };
      assert.equal(held.job_id, job.job_id);
      const statements = await statementsDuring(api.db, async () => {
        await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey, api.url);
      });
      assert.equal(agentReads(statements), reads, statements.join('\n'));
      assert.equal((await post('/compute/jobs/retrieve', { job_id: job.job_id }, key)).body.payload.state, 'succeeded');
    }
    // Another node of the workspace reporting the lease as the holder's (checked against the
    // hand-out), then as its own (read): both refused, and the holder's report still ends the job.
    const job = await submit(key);
    const held = (await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey, here.url))
      .jobs[0] as { job_id: string; leaseId: string };
    const posing = await post('/compute/nodes/result', resultOf(node, held, 0), other.nodeKey, here.url);
    assert.deepEqual([posing.status, posing.body.code], [403, 'auth.forbidden']);
    const forged = await post('/compute/nodes/result', resultOf(other, held, 0), other.nodeKey, here.url);
    assert.deepEqual([forged.status, forged.body.code], [409, 'job.not_assigned']);
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey, here.url);
    assert.equal((await post('/compute/jobs/retrieve', { job_id: job.job_id }, key)).body.payload.state, 'succeeded');
  });
  it('submits a job handed to a waiting poll in one transaction of two round trips (the insert; then its acknowledgement, assignment and stop list with COMMIT), and ends it in a third', async () => {
    const api = await apiWith();
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    // A connection's first meeting with a write's statements parses them one at a time; once the
    // few connections these calls take have met them, every write goes in one trip.
    const seen = new Set<string>();
    for (let i = 0; i < 10 && seen.size < 3; i++) {
      const trips = await oneTripsDuring(() => handedAndEnded(api.url!, key, node));
      for (const trip of trips) {
        assert.ok(
          [OPENED, HANDED, ENDED].some((kind) => trip.join() === kind.join()),
          `a trip of the statements of one write: ${trip.join()}`,
        );
        seen.add(trip.join());
      }
    }
    assert.deepEqual([...seen].sort(), [OPENED.join(), HANDED.join(), ENDED.join()].sort());
  });
});

async function keyRow(key: string) {
  return testEnv()
    .db('api_keys')
    .where({ prefix: key.slice(0, key.lastIndexOf('_')) })
    .first();
}

/**
 * A submit's insert, opening its transaction (with its idle limit); the handed-off job's acknowledgement, its assignment
 * and its node's stop list, committing it; an attempt's end and its usage entry.
 */
const OPENED = ['BEGIN', 'SET', 'job_insert'];
const HANDED = ['job_create_handed', 'job_projection', 'node_stops', 'COMMIT'];
const ENDED = ['job_projection', 'usage_attempt_end'];
const LEASE = 'rate-limit lease';

/** A job submitted while the node's poll waits on `url`: handed to it, then reported done. */
async function handedAndEnded(url: string, key: string, node: { nodeId: string; nodeKey: string }) {
  const waiting = async () => (await longPollsWaiting.get()).values[0]?.value ?? 0;
  const before = await waiting();
  const poll = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 10 }, node.nodeKey, url);
  await waitFor('the poll to wait', async () => (await waiting()) > before);
  const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'true' }, key, url);
  const [held] = (await poll).jobs as Array<{ job_id: string; leaseId: string }>;
  assert.equal(held.job_id, job.job_id);
  await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey, url);
}
