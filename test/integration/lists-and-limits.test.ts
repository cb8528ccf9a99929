import assert from 'node:assert/strict';
import { suiteClient } from '../support/temporal-client';
import { Connection } from '@temporalio/client';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import {
  heldJob,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  resultOf,
  submit,
  heartbeatInBackground,
} from '../support/http';

// What docs/reference/behaviour.md promises of lists, node states, heartbeats and push limits, each on the real stack.
describe('lists, node states and push limits, as the docs say', () => {
  it('jobs/list: newest first, paged by cursor with limit, filtered by state and labels', async () => {
    const { key } = await newWorkspace();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push((await submit(key, { labels: { n: String(i), team: i % 2 ? 'odd' : 'even' } })).job_id);
    const node = await registerNode(key);
    const held = (await pollOne(node))!;
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);

    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await ok('/compute/jobs/list', { limit: 2, ...(cursor && { cursor }) }, key);
      assert.ok(page.jobs.length <= 2);
      pages.push(page.jobs.map((j: { job_id: string }) => j.job_id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(pages, [[ids[4], ids[3]], [ids[2], ids[1]], [ids[0]]], 'newest first, two a page, each job once');

    const succeeded = await ok('/compute/jobs/list', { state: 'succeeded' }, key);
    assert.deepEqual(
      succeeded.jobs.map((j: { job_id: string }) => j.job_id),
      [held.job_id],
    );
    const queued = await ok('/compute/jobs/list', { state: ['queued', 'RUNNING'] }, key);
    assert.equal(queued.jobs.length, 4);
    const odd = await ok('/compute/jobs/list', { labels: { team: 'odd' } }, key);
    assert.deepEqual(
      odd.jobs.map((j: { job_id: string }) => j.job_id),
      [ids[3], ids[1]],
    );
    const bad = await post('/compute/jobs/list', { state: 'sleeping' }, key);
    assert.equal(bad.status, 400);
  });

  it('nodes/list: newest first, paged by cursor, with ONLINE, DRAINING, DRAINED and OFFLINE', async () => {
    const { key } = await newWorkspace();
    const online = await registerNode(key, {}, 'online');
    const draining = await registerNode(key, {}, 'draining');
    const drained = await registerNode(key, {}, 'drained');
    const offline = await registerNode(key, {}, 'offline');
    await submit(key);
    await pollOne(draining);
    await ok('/compute/nodes/drain', { nodeId: draining.nodeId }, draining.nodeKey);
    await ok('/compute/nodes/drain', { nodeId: drained.nodeId }, drained.nodeKey);
    // Silent for longer than the loss window, by the database's clock.
    await testEnv()
      .db('agents')
      .where({ id: offline.nodeId })
      .update({ last_heartbeat_at: testEnv().db.raw("now() - interval '1 hour'") });

    const first = await ok('/compute/nodes/list', { limit: 3 }, key);
    const second = await ok('/compute/nodes/list', { limit: 3, cursor: first.nextCursor }, key);
    assert.equal(second.nextCursor, null);
    const nodes = [...first.nodes, ...second.nodes];
    assert.deepEqual(
      nodes.map((n: { nodeId: string }) => n.nodeId),
      [offline.nodeId, drained.nodeId, draining.nodeId, online.nodeId],
    );
    assert.deepEqual(
      nodes.map((n: { state: string }) => n.state),
      ['OFFLINE', 'DRAINED', 'DRAINING', 'ONLINE'],
    );
  });

  it("a heartbeat's cancel names every job the node must not run: unknown, another's, finished", async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const done = (await submit(key)).job_id;
    await ok('/compute/nodes/result', resultOf(node, (await pollOne(node))!, 0), node.nodeKey);
    const other = await heldJob();
    await submit(key);
    // Held just now, and named at once: well inside its loss window.
    const job = (await pollOne(node))!;
    const unknown = 'job_00000000000000000000000000';
    const beat = await ok(
      '/compute/nodes/heartbeat',
      { nodeId: node.nodeId, runningJobs: [job.job_id, unknown, other.job.job_id, done] },
      node.nodeKey,
    );
    assert.deepEqual(beat.cancel.sort(), [unknown, other.job.job_id, done].sort());
  });

  it('a push takes at most 5000 lines of at most 64 KiB each', async () => {
    const { node, job } = await heldJob();
    const push = (lines: Array<{ seq: number; stream: string; line: string }>) =>
      post(
        '/compute/nodes/logs',
        { nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines },
        node.nodeKey,
      );
    const many = (n: number) => Array.from({ length: n }, (_, i) => ({ seq: i + 1, stream: 'stdout', line: '' }));
    assert.equal((await push(many(5000))).status, 200);
    const tooMany = await push(many(5001));
    assert.equal(tooMany.status, 400);
    assert.equal(tooMany.body.code, 'request.invalid');
    assert.equal((await push([{ seq: 9001, stream: 'stdout', line: 'x'.repeat(64 * 1024) }])).status, 200);
    const tooLong = await push([{ seq: 9002, stream: 'stdout', line: 'x'.repeat(64 * 1024 + 1) }]);
    assert.equal(tooLong.status, 400);
    assert.deepEqual(
      tooLong.body.details.fields.map((f: { path: string }) => f.path),
      ['lines.0.line'],
    );
  });

  it('every job is searchable by JobState, WorkspaceId, AgentId, JobType and Labels through visibility, as the UI queries', async () => {
    const { key, workspaceId, node, job } = await heldJob({ labels: { team: 'search' } });
    const queuedJob = await submit(key, { labels: { team: 'search' } });
    const connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    // A live agent: the held job must not be requeued as lost while visibility catches up.
    const heartbeats = heartbeatInBackground(node, [job.job_id]);
    try {
      const client = await suiteClient(connection);
      const find = async (query: string) => {
        const ids: string[] = [];
        for await (const wf of client.workflow.list({ query })) ids.push(wf.workflowId.replace(/^job-/, ''));
        return ids.sort();
      };
      const ws = `WorkspaceId = "${workspaceId}"`;
      // Visibility is eventually consistent: each query is asked until it answers as expected.
      const expectFound = async (query: string, ids: string[]) => {
        let last: string[] = [];
        await waitFor(`visibility to answer ${query}`, async () => {
          last = await find(query);
          return JSON.stringify(last) === JSON.stringify([...ids].sort());
        }).catch(() => assert.deepEqual(last, [...ids].sort(), query));
      };
      await expectFound(`${ws} AND JobState = "RUNNING"`, [job.job_id]);
      await expectFound(`${ws} AND JobState = "QUEUED"`, [queuedJob.job_id]);
      await expectFound(`${ws} AND AgentId = "${node.nodeId}"`, [job.job_id]);
      await expectFound(`${ws} AND JobType = "COMMAND" AND Labels = "team=search"`, [job.job_id, queuedJob.job_id]);
      assert.deepEqual(await find(`${ws} AND Labels = "team=elsewhere"`), []);
    } finally {
      await heartbeats.stop();
      await connection.close();
    }
  });
});
