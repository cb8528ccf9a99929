import assert from 'node:assert/strict';
import { login } from './support/auth';
import { ok, pollOne, post, registerNode, resultOf, waitForJob } from './support/http';
import { readLogStream } from './support/sse';
import { v0, v0ok } from './support/v0';

const lines = (n: number, from = 1) => Array.from({ length: n }, (_, i) => ({ seq: from + i, stream: i % 2 ? 'stderr' : 'stdout', line: `line ${from + i}`, ts: new Date().toISOString() }));

describe('jobs and agents on /v0', () => {
  it('a job submitted on /v0 runs on the agent protocol and reads back on both surfaces, each in its own spelling', async () => {
    const s = await login();
    const created = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo hi', labels: { team: 'a' } } });
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
    await ok('/compute/nodes/logs', { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, lines: lines(5) }, node.nodeKey);

    // Pages of the log: nextSeq carries on, complete only once the job is over and read to its end.
    const first = await v0ok('GET', `/jobs/${created.id}/logs?limit=3`, { token: s.token });
    assert.deepEqual(first.lines.map((l: { seq: number }) => l.seq), [1, 2, 3]);
    assert.equal(first.nextSeq, 3);
    assert.equal(first.complete, false);
    await ok('/compute/nodes/result', resultOf(node, held, 0, 42), node.nodeKey);
    const rest = await v0ok('GET', `/jobs/${created.id}/logs?afterSeq=${first.nextSeq}`, { token: s.token });
    assert.deepEqual(rest.lines.map((l: { line: string; stream: string }) => `${l.stream}:${l.line}`), ['stderr:line 4', 'stdout:line 5']);
    assert.equal(rest.complete, true);
    const after = await v0ok('GET', `/jobs/${created.id}/logs?afterSeq=${rest.nextSeq}`, { token: s.token });
    assert.deepEqual([after.lines, after.nextSeq, after.complete], [[], 5, true]);

    const done = await v0ok('GET', `/jobs/${created.id}`, { token: s.token });
    assert.deepEqual([done.state, done.exitCode, done.runtimeMs, done.agentId], ['SUCCEEDED', 0, 42, node.nodeId]);
    const doneA = await ok('/compute/jobs/retrieve', { job_id: created.id }, s.token);
    assert.deepEqual([doneA.state, doneA.exitCode, doneA.nodeId, doneA.job_id], ['succeeded', 0, node.nodeId, created.id]);

    // The SSE stream on both surfaces: the same lines, and `end` in each surface's spelling.
    const b = await readLogStream(s.token, created.id, { surface: 'b' });
    const a = await readLogStream(s.token, created.id);
    assert.equal(b.status, 200);
    assert.deepEqual(b.events.filter((e) => e.event === 'log').map((e) => e.data.line), ['line 1', 'line 2', 'line 3', 'line 4', 'line 5']);
    assert.deepEqual(b.events.at(-1), { event: 'end', id: undefined, data: { state: 'SUCCEEDED', exitCode: 0 } });
    assert.deepEqual(a.events.at(-1)!.data, { state: 'succeeded', exitCode: 0 });
    const resumed = await readLogStream(s.token, created.id, { surface: 'b', lastEventId: '3' });
    assert.deepEqual(resumed.events.filter((e) => e.event === 'log').map((e) => e.data.seq), [4, 5]);
  });

  it('cancel is 200 with the job as it now is, in every state, also with the colon escaped', async () => {
    const s = await login();
    const submit = () => v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'sleep 60' } });
    const queued = await submit();
    const c1 = await v0ok('POST', `/jobs/${queued.id}:cancel`, { token: s.token, status: 200 });
    assert.equal(c1.state, 'CANCELLED');
    const c2 = await v0ok('POST', `/jobs/${queued.id}%3Acancel`, { token: s.token, status: 200 });
    assert.equal(c2.state, 'CANCELLED', 'a cancelled job stays as it is');

    const node = await registerNode(s.token);
    const running = await submit();
    const held = (await pollOne(node))!;
    assert.equal(held.job_id, running.id);
    const c3 = await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 });
    assert.equal(c3.state, 'CANCELLING');
    assert.equal((await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 })).state, 'CANCELLING');
    await ok('/compute/nodes/result', resultOf(node, held, 137), node.nodeKey);
    await waitForJob(s.token, running.id, (j) => j.state === 'cancelled');
    assert.equal((await v0ok('POST', `/jobs/${running.id}:cancel`, { token: s.token, status: 200 })).state, 'CANCELLED');

    const succeeded = await submit();
    const h2 = (await pollOne(node))!;
    await ok('/compute/nodes/result', resultOf(node, h2, 0), node.nodeKey);
    assert.equal((await v0ok('POST', `/jobs/${succeeded.id}:cancel`, { token: s.token, status: 200 })).state, 'SUCCEEDED');
    // Surface A keeps its own rule for the same job.
    assert.equal((await post('/compute/jobs/cancel', { job_id: succeeded.id }, s.token)).status, 409);
    // A verb we do not have is refused in problem form, naming what was asked.
    const unknown = await v0('POST', `/jobs/${succeeded.id}:explode`, { token: s.token });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.equal(unknown.body.code, 'request.invalid');
    assert.match(unknown.body.detail, /POST is not allowed on \/v0\/jobs\/job_\w+:explode/);
  });

  it('lists newest first with filters, and pages return every job once while new jobs arrive', async () => {
    const s = await login();
    const submit = (labels: Record<string, string>) => v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'echo', labels, selector: { pool: 'nobody' } } });
    const early: string[] = [];
    for (let i = 0; i < 7; i++) early.push((await submit({ batch: 'one', parity: i % 2 ? 'odd' : 'even' })).id);
    const cancelled = early[0];
    await v0ok('POST', `/jobs/${cancelled}:cancel`, { token: s.token, status: 200 });

    const seen: string[] = [];
    let pageToken: string | null = null;
    do {
      const page: { items: Array<{ id: string }>; nextPageToken: string | null } = await v0ok('GET', `/jobs?label=batch=one&pageSize=3${pageToken ? `&pageToken=${pageToken}` : ''}`, { token: s.token });
      seen.push(...page.items.map((j) => j.id));
      pageToken = page.nextPageToken;
      await submit({ batch: 'one' }); // arrives between pages: newer than the cursor, never shifts it
    } while (pageToken);
    assert.deepEqual(seen, [...early].reverse(), 'every job once, newest first');

    const odd = await v0ok('GET', '/jobs?label=batch=one&label=parity=odd', { token: s.token });
    assert.deepEqual(odd.items.map((j: { id: string }) => j.id), [early[5], early[3], early[1]]);
    const states = await v0ok('GET', '/jobs?label=parity=even&state=CANCELLED&state=SUCCEEDED', { token: s.token });
    assert.deepEqual(states.items.map((j: { id: string }) => j.id), [cancelled]);
    const window = await v0ok('GET', `/jobs?label=batch=one&createdAfter=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`, { token: s.token });
    assert.deepEqual(window.items, []);

    for (const [query, field] of [['state=BOGUS', 'state'], ['label=novalue', 'label'], ['createdBefore=yesterday', 'createdBefore'], ['pageSize=500', 'pageSize']]) {
      const bad = await v0('GET', `/jobs?${query}`, { token: s.token });
      assert.equal(bad.status, 400, query);
      assert.equal(bad.body.code, 'request.invalid');
      assert.ok(bad.body.errors.some((e: { path: string }) => e.path.startsWith(field)), `${query}: ${JSON.stringify(bad.body.errors)}`);
    }
  });

  it('lists, reads and drains agents, with the jobs they run', async () => {
    const s = await login();
    const node = await registerNode(s.token, { gpu: 'a100' }, 'big');
    const job = await v0ok('POST', '/jobs', { token: s.token, body: { type: 'COMMAND', command: 'sleep 1' } });
    const held = (await pollOne(node))!;
    const agent = await v0ok('GET', `/agents/${node.nodeId}`, { token: s.token });
    assert.deepEqual([agent.id, agent.name, agent.labels, agent.state, agent.currentJobs], [node.nodeId, 'big', { gpu: 'a100' }, 'ONLINE', [job.id]]);
    const listed = await v0ok('GET', '/agents', { token: s.token });
    assert.deepEqual(listed.items.map((a: { id: string }) => a.id), [node.nodeId]);
    const drained = await v0ok('POST', `/agents/${node.nodeId}:drain`, { token: s.token, status: 200, body: { deadlineSeconds: 600 } });
    assert.equal(drained.state, 'DRAINING');
    assert.ok(Date.parse(drained.drainDeadlineAt) > Date.now());
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
    assert.equal((await v0ok('GET', `/agents/${node.nodeId}`, { token: s.token })).state, 'DRAINED');
    assert.equal((await v0('GET', '/agents/agent_00000000000000000000000000', { token: s.token })).status, 404);
  });
});
