// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { pidsWritten, running, spawnAgent, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { ok, pollOne, post, registerNode, resultOf, waitForJob } from '../support/http';
import { readLogStream } from '../support/sse';
import { v0, v0ok } from '../support/v0';

const lines = (n: number, from = 1) =>
  Array.from({ length: n }, (_, i) => ({
    seq: from + i,
    stream: i % 2 ? 'stderr' : 'stdout',
    line: `line ${from + i}`,
    ts: new Date().toISOString(),
  }));

describe('jobs and agents on /v0', () => {
  it('a job submitted on /v0 runs on the agent protocol and reads back on both surfaces, each in its own spelling', async () => {
    const s = await login();
    const created = await v0ok('POST', '/jobs', {
      token: s.token,
      body: { type: 'COMMAND', command: 'echo hi', labels: { team: 'a' } },
    });
    assert.deepEqual(Object.keys(created).sort(), ['createdAt', 'id', 'state']);
    assert.equal(created.state, 'QUEUED');
    const onA = await ok('/compute/jobs/retrieve', { job_id: created.id }, s.token);
    assert.equal(onA.state, 'queued');

    const node = await registerNode(s.token);
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, created.id);
    const running = await v0ok('GET', `/jobs/${created.id}`, { token: s.token });
    assert.equal(running.state, 'RUNNING');
    assert.equal(running.agentId, node.nodeId);
    await ok(
      '/compute/nodes/logs',
      { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, lines: lines(5) },
      node.nodeKey,
    );

    // Pages of the log: nextSeq carries on, complete only once the job is over and read to its end.
    const first = await v0ok('GET', `/jobs/${created.id}/logs?limit=3`, { token: s.token });
    assert.deepEqual(
      first.lines.map((l: { seq: number }) => l.seq),
      [1, 2, 3],
    );
    assert.equal(first.nextSeq, 3);
    assert.equal(first.complete, false);
    await ok('/compute/nodes/result', resultOf(node, held, 0, 42), node.nodeKey);
    const rest = await v0ok('GET', `/jobs/${created.id}/logs?afterSeq=${first.nextSeq}`, { token: s.token });
    assert.deepEqual(
      rest.lines.map((l: { line: string; stream: string }) => `${l.stream}:${l.line}`),
      ['stderr:line 4', 'stdout:line 5'],
    );
    assert.equal(rest.complete, true);
    const after = await v0ok('GET', `/jobs/${created.id}/logs?afterSeq=${rest.nextSeq}`, { token: s.token });
    assert.deepEqual([after.lines, after.nextSeq, after.complete], [[], 5, true]);

    const done = await v0ok('GET', `/jobs/${created.id}`, { token: s.token });
    assert.deepEqual([done.state, done.exitCode, done.runtimeMs, done.agentId], ['SUCCEEDED', 0, 42, node.nodeId]);
    const doneA = await ok('/compute/jobs/retrieve', { job_id: created.id }, s.token);
    assert.deepEqual(
      [doneA.state, doneA.exitCode, doneA.nodeId, doneA.job_id],
      ['succeeded', 0, node.nodeId, created.id],
    );

    // The SSE stream on both surfaces: the same lines, and `end` in each surface's spelling.
    const b = await readLogStream(s.token, created.id, { surface: 'b' });
    const a = await readLogStream(s.token, created.id);
    assert.equal(b.status, 200);
    assert.deepEqual(
      b.events.filter((e) => e.event === 'log').map((e) => e.data.line),
      ['line 1', 'line 2', 'line 3', 'line 4', 'line 5'],
    );
    assert.deepEqual(b.events.at(-1), { event: 'end', id: undefined, data: { state: 'SUCCEEDED', exitCode: 0 } });
    assert.deepEqual(a.events.at(-1)!.data, { state: 'succeeded', exitCode: 0 });
    const resumed = await readLogStream(s.token, created.id, { surface: 'b', lastEventId: '3' });
    assert.deepEqual(
      resumed.events.filter((e) => e.event === 'log').map((e) => e.data.seq),
      [4, 5],
    );
  });

  it('cancel is 200 with the job as it now is, in every state, also with the colon escaped', async () => {
    const s = await login();
    const submit = () => v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'sleep 60' } });
    const queued = await submit();
    const c1 = await v0ok('POST', `/jobs/${queued.id}:cancel`, { token: s.token, status: 200 });
    assert.equal(c1.state, 'CANCELLED');
    const c2 = await v0ok('POST', `/jobs/${queued.id}%3Acancel`, { token: s.token, status: 200 });
    for (const verb of [':frobnicate', '%3Afrobnicate', ':']) {
      const unknown = await v0('POST', `/jobs/${queued.id}${verb}`, { token: s.token });
      assert.deepEqual([unknown.status, unknown.body.code], [404, 'resource.not_found'], verb);
    }
    assert.equal(c2.state, 'CANCELLED', 'a cancelled job stays as it is');

    const node = await registerNode(s.token);
    const running = await submit();
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, running.id);
    const c3 = await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 });
    assert.equal(c3.state, 'CANCELLING');
    assert.equal(
      (await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 })).state,
      'CANCELLING',
    );
    await ok('/compute/nodes/result', resultOf(node, held, 137), node.nodeKey);
    await waitForJob(s.token, running.id, (j) => j.state === 'cancelled');
    assert.equal(
      (await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 })).state,
      'CANCELLED',
    );

    const succeeded = await submit();
    const h2 = (await pollOne(node))!;
    await ok('/compute/nodes/result', resultOf(node, h2, 0), node.nodeKey);
    assert.equal(
      (await v0ok('POST', `/jobs/${succeeded.id}:cancel`, { token: s.token, status: 200 })).state,
      'SUCCEEDED',
    );
    // Surface A keeps its own rule for the same job.
    assert.equal((await post('/compute/jobs/cancel', { job_id: succeeded.id }, s.token)).status, 409);
    // A verb we do not have is refused in problem form, naming what was asked.
    const unknown = await v0('POST', `/jobs/${succeeded.id}:explode`, { token: s.token });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, 'resource.not_found');
    assert.match(unknown.body.detail, /no operation :explode/);
    // A method the resource does not take is 405 with what it takes, naming the method.
    const put = await v0('PUT', `/jobs/${succeeded.id}`, { token: s.token });
    assert.deepEqual([put.status, put.body.code, put.headers.get('allow')], [405, 'request.invalid', 'HEAD, GET']);
    assert.match(put.body.detail, /PUT is not allowed on \/v0\/jobs\/job_\w+$/);
  });

  it('every list refuses a page token it did not issue, naming the parameter as its surface spells it', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const foreign = Buffer.from('job_00000000000000000000000000').toString('base64url');
    for (const list of [
      '/jobs',
      '/agents',
      '/webhooks',
      '/tokens',
      '/workspaces',
      `/workspaces/${ws}/members`,
      `/workspaces/${ws}/audit`,
    ]) {
      const res = await v0('GET', `${list}?pageToken=not-ours`, { token: s.token });
      assert.deepEqual(
        [res.status, res.body.code, res.body.errors?.map((e: { path: string }) => e.path)],
        [400, 'request.invalid', ['pageToken']],
        list,
      );
      assert.deepEqual(res.body.details?.fields, res.body.errors, `${list}: the fields in details too (CONTRACT §3)`);
    }
    // A token from another list is not ours either.
    const agents = await v0('GET', `/agents?pageToken=${foreign}`, { token: s.token });
    assert.deepEqual(
      agents.body.errors.map((e: { path: string }) => e.path),
      ['pageToken'],
    );
    const onA = await post('/compute/jobs/list', { cursor: 'not-ours' }, s.token);
    assert.deepEqual([onA.status, onA.body.details.fields.map((f: { path: string }) => f.path)], [400, ['cursor']]);
  });

  it('lists newest first with filters, and pages return every job once while new jobs arrive', async () => {
    const s = await login();
    const submit = (labels: Record<string, string>) =>
      v0ok('POST', '/jobs', {
        token: s.token,
        body: { type: 'COMMAND', command: 'echo', labels, selector: { pool: 'nobody' } },
      });
    const early: string[] = [];
    for (let i = 0; i < 7; i++) early.push((await submit({ batch: 'one', parity: i % 2 ? 'odd' : 'even' })).id);
    const cancelled = early[0];
    await v0ok('POST', `/jobs/${cancelled}:cancel`, { token: s.token, status: 200 });

    const seen: string[] = [];
    let pageToken: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextPageToken: string | null } = await v0ok(
        'GET',
        `/jobs?label=batch=one&pageSize=3${pageToken ? `&pageToken=${pageToken}` : ''}`,
        { token: s.token },
      );
      seen.push(...page.items.map((j) => j.id));
      pageToken = page.nextPageToken;
      await submit({ batch: 'one' }); // arrives between pages: newer than the cursor, never shifts it
    } while (pageToken);
    assert.deepEqual(seen, [...early].reverse(), 'every job once, newest first');

    const odd = await v0ok('GET', '/jobs?label=batch=one&label=parity=odd', { token: s.token });
    assert.deepEqual(
      odd.items.map((j: { id: string }) => j.id),
      [early[5], early[3], early[1]],
    );
    const states = await v0ok('GET', '/jobs?label=parity=even&state=CANCELLED&state=SUCCEEDED', { token: s.token });
    assert.deepEqual(
      states.items.map((j: { id: string }) => j.id),
      [cancelled],
    );
    const window = await v0ok(
      'GET',
      `/jobs?label=batch=one&createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
      { token: s.token },
    );
    assert.deepEqual(window.items, []);

    for (const [query, field] of [
      ['state=BOGUS', 'state'],
      ['label=novalue', 'label'],
      ['createdBefore=yesterday', 'createdBefore'],
      ['pageSize=500', 'pageSize'],
    ]) {
      const bad = await v0('GET', `/jobs?${query}`, { token: s.token });
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.code, 'request.invalid');
      assert.ok(
        bad.body.errors.some((e: { path: string }) => e.path.startsWith(field)),
        `${query}: ${JSON.stringify(bad.body.errors)}`,
      );
    }
  });

  it('lists, reads and drains agents, with the jobs they run', async () => {
    const s = await login();
    const node = await registerNode(s.token, { gpu: 'a100' }, 'big');
    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'sleep 1' } });
    const held = (await pollOne(node))!;
    // The poll's answer may go out a moment before the assignment's row commits (the claim's design).
    const agent = await waitFor(
      'the agent to list its job',
      async () => {
        const read = await v0ok('GET', `/agents/${node.nodeId}`, { token: s.token });
        return read.currentJobs.length > 0 && read;
      },
      5000,
    );
    assert.deepEqual(
      [agent.id, agent.name, agent.labels, agent.state, agent.currentJobs],
      [node.nodeId, 'big', { gpu: 'a100' }, 'ONLINE', [job.id]],
    );
    const listed = await v0ok('GET', '/agents', { token: s.token });
    assert.deepEqual(
      listed.items.map((a: { id: string }) => a.id),
      [node.nodeId],
    );
    const drained = await v0ok('POST', `/agents/${node.nodeId}:drain`, {
      token: s.token,
      status: 200,
      body: { deadlineSeconds: 600 },
    });
    assert.equal(drained.state, 'DRAINING');
    assert.ok(Date.parse(drained.drainDeadlineAt) > Date.now());
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
    assert.equal((await v0ok('GET', `/agents/${node.nodeId}`, { token: s.token })).state, 'DRAINED');
    assert.equal((await v0('GET', '/agents/agent_00000000000000000000000000', { token: s.token })).status, 404);
  });
});

describe('DELETE /v0/agents/{id}', () => {
  const db = () => testEnv().db;

  it('requeues the running job at once as an attempt not counted as a loss; the old key is 401 and a late result 409', async () => {
    const s = await login();
    const ws = s.user.workspaceId;
    const node = await registerNode(s.token, { fleet: 'old' });
    const created = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'sleep 600' } });
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, created.id);

    const removed = await v0('DELETE', `/agents/${node.nodeId}`, { token: s.token });
    assert.equal(removed.status, 204, JSON.stringify(removed.body));
    const removedAt = Date.now();

    // Requeued now, not after a liveness timeout or a backoff.
    await waitFor(
      'the job to be requeued',
      async () => {
        const job = await v0ok('GET', `/jobs/${created.id}`, { token: s.token });
        return job.state === 'QUEUED' && job.attempt === 2;
      },
      5_000,
    );
    assert.ok(
      Date.now() - removedAt < testEnv().config.durations.agentLostAfterMs,
      'sooner than an agent loss is noticed',
    );
    assert.ok(
      await db()('jobs').where({ id: created.id }).where('available_at', '<=', db().fn.now()).first(),
      'no backoff: claimable now',
    );
    const attempt = await db()('job_attempts').where({ lease_id: held.leaseId }).first('end_reason', 'ended_at');
    assert.equal(attempt.end_reason, 'deregistered', 'the attempt ended by the removal, not by an agent loss');

    // The removed node's key stops on every call; a result for its lease through a credential that
    // still works is refused for the lease.
    for (const [path, body] of [
      ['/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [held.job_id] }],
      ['/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 0 }],
      ['/compute/nodes/result', resultOf(node, held, 0)],
    ] as const) {
      const reply = await post(path, body, node.nodeKey);
      assert.deepEqual([reply.status, reply.body.code], [401, 'auth.unauthenticated'], path);
    }
    const late = await post('/compute/nodes/result', resultOf(node, held, 0), s.token);
    assert.deepEqual([late.status, late.body.code], [409, 'job.not_assigned']);

    // Gone from the lists and reads; a second removal finds nothing; the removal is audited once.
    assert.equal((await v0('GET', `/agents/${node.nodeId}`, { token: s.token })).status, 404);
    const listed = await v0ok('GET', '/agents', { token: s.token });
    assert.ok(!listed.items.some((a: { id: string }) => a.id === node.nodeId));
    assert.equal((await v0('DELETE', `/agents/${node.nodeId}`, { token: s.token })).status, 404);
    const entries = await db()('audit_log')
      .where({ workspace_id: ws, action: 'agent.deregister' })
      .select('target_id', 'outcome', 'actor_id');
    assert.deepEqual(entries, [{ target_id: node.nodeId, outcome: 'success', actor_id: s.user.id }]);

    // Another agent takes the job as its second attempt and finishes it.
    const next = await registerNode(s.token);
    const again = (await pollOne(next))!;
    assert.deepEqual([again.job_id, again.attempt], [created.id, 2]);
    await ok('/compute/nodes/result', resultOf(next, again, 0), next.nodeKey);
    assert.equal((await v0ok('GET', `/jobs/${created.id}`, { token: s.token })).state, 'SUCCEEDED');
  });

  it('stops an agent process whose node was removed, and the job process it ran', async function () {
    this.timeout(60_000);
    const s = await login();
    const pidFile = path.join(testEnv().dataDir, `deregistered-${Date.now()}.pid`);
    const { key } = await createApiKey(db(), { workspaceId: s.user.workspaceId, name: 'fleet', kind: 'user' });
    const agent = await spawnAgent({ key });
    try {
      const created = await v0ok('POST', '/jobs', {
        token: s.token,
        body: { type: 'COMMAND', command: `echo $$ > ${pidFile}; exec sleep 600` },
      });
      const [jobPid] = await pidsWritten(pidFile);
      await v0ok('DELETE', `/agents/${agent.nodeId()}`, { token: s.token, status: 204 });
      assert.equal(await agent.child.exited, 1, 'the agent exits, refused');
      assert.match(agent.log(), /the API refused this node/);
      await waitFor('the job process to be stopped', () => !running(jobPid));
      // Requeued by its run once signalled (the removal asks it before answering); its write can
      // land after the agent, refused on its next call, has stopped the process.
      await waitFor(
        'the job requeued',
        async () => (await v0ok('GET', `/jobs/${created.id}`, { token: s.token })).state === 'QUEUED',
        10_000,
      );
    } finally {
      await agent.child.stop();
    }
  });
});
