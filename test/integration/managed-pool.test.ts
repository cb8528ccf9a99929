import assert from 'node:assert/strict';
import { ensureOperatorWorkspace } from '../../src/workspaces/rows';
import { agentPool } from '../support/agents';
import { login } from '../support/auth';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import {
  credentialHeaders,
  inState,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  retrieve,
  sleep,
  storedLines,
  submit,
  waitForJob,
} from '../support/http';
import {
  managedJob,
  managedKey,
  newRegion,
  onManagedPlan,
  registerManaged,
  workspaceIn,
} from '../support/managed-pool';
import { v0, v0ok } from '../support/v0';

// The managed pool (CONTRACT §9): agents registered with an operator's managed-pool key take
// `pool: managed` jobs of every workspace in their region. Each test works in a region of its
// own, so no other test's managed agent or job meets its own. Fairness: managed-pool-fairness.test.ts.

const db = () => testEnv().db;

describe('the managed pool', () => {
  const start = agentPool();

  it('a managed-pool key minted by the operator registers managed agents and does nothing else, on either surface', async function () {
    this.timeout(60_000);
    const minted = await compute(['admin', 'keys', 'create', '--kind', 'managed', '--name', 'fleet']);
    assert.equal(minted.code, 0, minted.stderr);
    const key = minted.stdout.trim();
    assert.match(key, /^ckm/);
    const row = await db()('api_keys as k')
      .join('workspaces as w', 'w.id', 'k.workspace_id')
      .where({ 'k.prefix': key.split('_')[0] })
      .first('k.kind', 'w.is_operator');
    assert.deepEqual(row, { kind: 'managed', is_operator: true }, 'in the operator workspace, no customer one');
    const quotas = await compute([
      'admin',
      'keys',
      'create',
      '--kind',
      'managed',
      '--name',
      'x',
      '--max-concurrent-jobs',
      '3',
    ]);
    assert.notEqual(quotas.code, 0);
    const operatorWs = await ensureOperatorWorkspace(db());
    const userKeyThere = await compute(['admin', 'keys', 'create', '--name', 'x', '--workspace', operatorWs]);
    assert.notEqual(userKeyThere.code, 0, 'no member-like key in the operator workspace');

    // Every Surface A operation but registration refuses it, before reading anything.
    const { key: customer } = await newWorkspace();
    const queued = await submit(customer, { selector: { nobody: 'here' } });
    const routes = testEnv().service.routes!.filter(
      (r) => r.path.startsWith('/api/') && r.method === 'post' && r.action !== 'none',
    );
    assert.ok(routes.length > 10, 'the route table is read');
    for (const r of routes) {
      if (r.path === '/api/compute/nodes/register') continue;
      const reply = await post(r.path.slice('/api'.length), { job_id: queued.job_id }, key);
      assert.equal(reply.status, 403, `${r.path}: ${JSON.stringify(reply.body)}`);
      assert.equal(reply.body.code, 'auth.forbidden', r.path);
    }
    const sse = await fetch(`${testEnv().url}/api/compute/jobs/${queued.job_id}/logs`, {
      headers: credentialHeaders(key),
    });
    assert.equal(sse.status, 403);
    assert.equal(
      (await v0('GET', '/jobs', { headers: { 'X-API-Key': key } })).status,
      401,
      '/v0 takes no API key at all',
    );

    // Registration makes a managed-pool agent of the region (default local); its node key is a node key.
    const region = newRegion();
    const node = await registerManaged(key, region, { size: 'large' });
    const noRegion = await ok('/compute/nodes/register', { name: 'default-region' }, key);
    const agents = await db()('agents')
      .whereIn('id', [node.nodeId, noRegion.nodeId])
      .orderBy('created_at')
      .select('workspace_id', 'pool', 'region');
    assert.deepEqual(agents, [
      { workspace_id: operatorWs, pool: 'managed', region },
      { workspace_id: operatorWs, pool: 'managed', region: 'local' },
    ]);
    assert.equal((await post('/compute/jobs/list', {}, node.nodeKey)).status, 403);
    assert.equal((await post('/compute/nodes/register', { name: 'again' }, node.nodeKey)).status, 403);
    assert.equal(await pollOne(node, 0), undefined, "a customer's queued self job is not for it");

    // A region with a workspace's key is refused; its agents show no region on /v0.
    const refused = await post('/compute/nodes/register', { name: 'n', region: 'eu' }, customer);
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'request.invalid');
    assert.deepEqual(
      refused.body.details.fields.map((f: { path: string }) => f.path),
      ['region'],
    );
    const s = await login();
    await ok('/compute/nodes/register', { name: 'mine' }, s.token);
    const listed = await v0ok('GET', '/agents', { token: s.token });
    assert.deepEqual(
      listed.items.map((a: { region: string | null }) => a.region),
      [null],
    );
  });

  it('runs a managed job on a managed agent (`compute agent --region`): its logs, artifact and result, and a cancel', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const agent = await start({ key: await managedKey(), region, concurrency: 2 });
    const job = await managedJob(key, {
      command: 'echo from the managed pool; echo kept > out.txt',
      artifacts: { paths: ['out.txt'] },
    });
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    assert.deepEqual(
      [done.pool, done.region, done.nodeId],
      ['managed', region, agent.nodeId()],
      'the workspace default region, on the managed agent',
    );
    assert.deepEqual(
      done.artifacts.map((a: { name: string }) => a.name),
      ['out.txt'],
    );
    assert.ok((await storedLines(job.job_id)).includes('from the managed pool'));

    const long = await managedJob(key, { command: 'sleep 30' });
    await waitForJob(key, long.job_id, inState('running'));
    await ok('/compute/jobs/cancel', { job_id: long.job_id }, key);
    await waitForJob(key, long.job_id, inState('cancelled'), 20_000);
  });

  it('routes by region, and keeps the pools apart: self jobs never reach managed agents, managed jobs never a workspace’s own', async () => {
    const here = newRegion();
    const there = newRegion();
    const { key } = await workspaceIn(here);
    const pool = await managedKey();
    const managedHere = await registerManaged(pool, here);
    const managedThere = await registerManaged(pool, there);
    const own = await registerNode(key);

    const forThere = await managedJob(key, { region: there });
    const forHere = await managedJob(key);
    const self = await submit(key);
    assert.equal(
      (await retrieve(key, forThere.job_id)).region,
      there,
      "the manifest's region wins over the workspace's",
    );
    assert.equal((await retrieve(key, self.job_id)).region, null);

    assert.equal((await pollOne(managedHere, 0))?.job_id, forHere.job_id);
    assert.equal(await pollOne(managedHere, 0), undefined, 'neither the other region’s job nor the self job');
    assert.equal((await pollOne(own, 0))?.job_id, self.job_id);
    assert.equal(await pollOne(own, 0), undefined, 'the workspace’s agent takes no managed job');
    assert.equal((await pollOne(managedThere, 0))?.job_id, forThere.job_id);
  });

  it("applies the selector, then priority, then age within a workspace's managed jobs", async () => {
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const low = await managedJob(key, { priority: 1 });
    const oldHigh = await managedJob(key, { priority: 5 });
    const newHigh = await managedJob(key, { priority: 5 });
    const gpuOnly = await managedJob(key, { priority: 5, selector: { gpu: 'a100' } });
    const pool = await managedKey();
    const cpu = await registerManaged(pool, region, { os: 'linux' });
    const order = [];
    for (let i = 0; i < 3; i++) order.push((await pollOne(cpu, 0))!.job_id);
    assert.deepEqual(order, [oldHigh.job_id, newHigh.job_id, low.job_id]);
    assert.equal(await pollOne(cpu, 0), undefined, 'the gpu job does not match');
    const gpu = await registerManaged(pool, region, { gpu: 'a100', os: 'linux' });
    assert.equal((await pollOne(gpu, 0))?.job_id, gpuOnly.job_id);
  });

  it('wakes a managed long poll on a managed submit in its region, and on nothing else', async () => {
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const node = await registerManaged(await managedKey(), region);
    const untouched = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 2 }, node.nodeKey);
    await sleep(200);
    await submit(key);
    await managedJob(key, { region: newRegion() });
    assert.deepEqual((await untouched).jobs, [], 'a self job and another region’s job leave it waiting');

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      const polling = ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 10 }, node.nodeKey).then((out) => ({
        out,
        at: Date.now(),
      }));
      await sleep(300);
      const submittedAt = Date.now();
      const sub = await managedJob(key);
      const { out, at } = await polling;
      assert.equal(out.jobs[0].job_id, sub.job_id);
      latencies.push(at - submittedAt);
      await ok(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: sub.job_id, leaseId: out.jobs[0].leaseId, exitCode: 0, runtimeMs: 1 },
        node.nodeKey,
      );
    }
    latencies.sort((a, b) => a - b);
    process.stderr.write(`      managed submit→poll (incl. submit round trip) ms: ${latencies.join(', ')}\n`);
    assert.ok(latencies[2] < 250, `median ${latencies[2]} ms`);
  });

  it('a managed agent reaches only the jobs it holds: logs, results and heartbeats for any other are refused', async () => {
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const pool = await managedKey();
    const holder = await registerManaged(pool, region, {}, 'holder');
    const intruder = await registerManaged(pool, region, {}, 'intruder');
    const managed = await managedJob(key);
    const held = (await pollOne(holder, 0))!;
    assert.equal(held.job_id, managed.job_id);
    // Another workspace's self job, held by its own agent.
    const other = await newWorkspace();
    const ownNode = await registerNode(other.key);
    const selfJob = await submit(other.key);
    const selfHeld = (await pollOne(ownNode, 0))!;

    const line = [{ seq: 1, stream: 'stdout', line: 'not mine' }];
    for (const [job, lease] of [
      [held.job_id, held.leaseId],
      [selfHeld.job_id, selfHeld.leaseId],
    ]) {
      const pushed = await post(
        '/compute/nodes/logs',
        { nodeId: intruder.nodeId, job_id: job, leaseId: lease, lines: line },
        intruder.nodeKey,
      );
      assert.equal(pushed.status, 404, JSON.stringify(pushed.body));
      const reported = await post(
        '/compute/nodes/result',
        { nodeId: intruder.nodeId, job_id: job, leaseId: lease, exitCode: 0, runtimeMs: 1 },
        intruder.nodeKey,
      );
      assert.equal(reported.status, 404, JSON.stringify(reported.body));
    }
    const beat = await ok(
      '/compute/nodes/heartbeat',
      { nodeId: intruder.nodeId, runningJobs: [held.job_id, selfJob.job_id] },
      intruder.nodeKey,
    );
    assert.deepEqual(beat.cancel.sort(), [held.job_id, selfJob.job_id].sort(), 'told to stop what it does not hold');
    // A workspace's own agent never holds a managed job: 404 from another workspace, 409 from the job's own.
    const fromOther = await post(
      '/compute/nodes/logs',
      { nodeId: ownNode.nodeId, job_id: held.job_id, leaseId: held.leaseId, lines: line },
      ownNode.nodeKey,
    );
    assert.equal(fromOther.status, 404, JSON.stringify(fromOther.body));
    const sameWorkspace = await registerNode(key);
    const fromSame = await post(
      '/compute/nodes/logs',
      { nodeId: sameWorkspace.nodeId, job_id: held.job_id, leaseId: held.leaseId, lines: line },
      sameWorkspace.nodeKey,
    );
    assert.equal(fromSame.status, 409, JSON.stringify(fromSame.body));
    assert.deepEqual(await storedLines(held.job_id), []);
    assert.deepEqual(await storedLines(selfJob.job_id), []);
    assert.equal((await retrieve(key, held.job_id)).state, 'running');
    assert.equal((await retrieve(other.key, selfJob.job_id)).state, 'running');

    // The holder's own protocol works end to end across the workspace boundary.
    await ok(
      '/compute/nodes/logs',
      {
        nodeId: holder.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        lines: [{ seq: 1, stream: 'stdout', line: 'mine' }],
      },
      holder.nodeKey,
    );
    const kept = await ok(
      '/compute/nodes/heartbeat',
      { nodeId: holder.nodeId, runningJobs: [held.job_id] },
      holder.nodeKey,
    );
    assert.deepEqual(kept.cancel, []);
    await ok(
      '/compute/nodes/result',
      { nodeId: holder.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 5 },
      holder.nodeKey,
    );
    await waitForJob(key, held.job_id, inState('succeeded'));
    assert.deepEqual(await storedLines(held.job_id), ['mine']);
    // A managed agent that held the job once is told its lease is gone, as any agent is.
    const late = await post(
      '/compute/nodes/logs',
      {
        nodeId: holder.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        lines: [{ seq: 2, stream: 'stdout', line: 'late' }],
      },
      holder.nodeKey,
    );
    assert.equal(late.status, 409);
  });

  it('checks the manifest on both surfaces: a region is for managed jobs only, and well formed', async () => {
    const { key, workspaceId } = await newWorkspace();
    const selfWithRegion = await post('/compute/jobs/submit', { type: 'COMMAND', command: 'x', region: 'eu' }, key);
    assert.equal(selfWithRegion.status, 400);
    assert.equal(selfWithRegion.body.code, 'request.invalid');
    assert.deepEqual(
      selfWithRegion.body.details.fields.map((f: { path: string }) => f.path),
      ['region'],
    );
    const malformed = await post(
      '/compute/jobs/submit',
      { type: 'COMMAND', command: 'x', pool: 'managed', region: 'EU West' },
      key,
    );
    assert.equal(malformed.status, 400);
    assert.deepEqual(
      malformed.body.details.fields.map((f: { path: string }) => f.path),
      ['region'],
    );
    assert.equal(
      Number((await db()('jobs').where({ workspace_id: workspaceId }).count<{ n: string }[]>('* as n'))[0].n),
      0,
    );

    const s = await login();
    await onManagedPlan(s.user.workspaceId);
    const refused = await v0('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'x', pool: 'self', region: 'eu' },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.code, 'request.invalid');
    assert.deepEqual(
      refused.body.errors.map((e: { path: string }) => e.path),
      ['region'],
    );
    const made = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'x', pool: 'managed', region: 'nowhere-1' },
    });
    const job = await v0ok('GET', `/jobs/${made.id}`, { token: s.token });
    assert.deepEqual([job.pool, job.region], ['managed', 'nowhere-1']);
    const byDefault = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'x', pool: 'managed' },
    });
    assert.equal(
      (await v0ok('GET', `/jobs/${byDefault.id}`, { token: s.token })).region,
      'local',
      "the workspace's defaultRegion",
    );
    await v0ok('POST', `/jobs/${made.id}:cancel`, { token: s.token, status: 200 });
    await v0ok('POST', `/jobs/${byDefault.id}:cancel`, { token: s.token, status: 200 });
  });
});
