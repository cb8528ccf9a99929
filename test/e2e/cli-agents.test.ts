// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { login } from '../support/auth';
import { cliUser } from '../support/cli';
import { testEnv } from '../support/env';
import { newWorkspace, post, registerNode, submit } from '../support/http';

describe('compute agents and compute jobs list --since/--until', () => {
  it('lists, shows, drains and removes agents of the active workspace', async function () {
    this.timeout(120_000);
    const me = await cliUser();
    const node = await registerNode(me.session.token, { gpu: 'a100' }, 'render-1');
    // Alive throughout, as a running agent would be (each CLI call takes seconds to start).
    const beat = setInterval(
      () =>
        void post('/compute/nodes/heartbeat', { nodeId: node.nodeId, runningJobs: [] }, node.nodeKey).catch(
          () => undefined,
        ),
      500,
    );
    try {
      const listed = JSON.parse(await me.ok('agents', 'list', '--json')) as Array<{
        id: string;
        name: string;
        state: string;
        labels: Record<string, string>;
      }>;
      assert.deepEqual(
        listed.map((a) => [a.id, a.name, a.state, a.labels]),
        [[node.nodeId, 'render-1', 'ONLINE', { gpu: 'a100' }]],
      );
      const table = await me.ok('agents', 'list');
      assert.match(table, /^ID\s+NAME\s+STATE\s+LABELS\s+LAST HEARTBEAT\s+JOBS\n/);
      assert.match(table, new RegExp(`^${node.nodeId}\\s+render-1\\s+ONLINE\\s+gpu=a100\\s`, 'm'));
      assert.match(await me.ok('agents', 'get', node.nodeId), /^state\s+ONLINE$/m);

      const drained = JSON.parse(await me.ok('agents', 'drain', node.nodeId, '--deadline', '60', '--json')) as {
        state: string;
        drainDeadlineAt: string;
      };
      assert.equal(drained.state, 'DRAINED', 'draining with nothing to finish');
      assert.ok(Date.parse(drained.drainDeadlineAt) > Date.now());

      // A removed node's key is refused, and refused credentials count against this address
      // (60 a window): heartbeats kept up past the removal would shut out the tests after this one.
      clearInterval(beat);
      const removed = await me.run('agents', 'remove', node.nodeId);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stderr, new RegExp(`removed ${node.nodeId}`));
      assert.deepEqual(JSON.parse(await me.ok('agents', 'list', '--json')), []);
      const gone = await me.run('agents', 'get', node.nodeId);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /^error: [^\n]*resource\.not_found[^\n]*\n$/);
      const typo = await me.run('agents', 'drain', node.nodeId, '--deadline', 'soon');
      assert.equal(typo.code, 1);
      assert.match(typo.stderr, /--deadline/);
    } finally {
      clearInterval(beat);
    }
  });

  it('jobs list takes --since and --until as an ISO time or a duration ago', async function () {
    this.timeout(120_000);
    const me = await cliUser();
    const old = await submit(me.session.token, { selector: { pool: 'nobody' } });
    const recent = await submit(me.session.token, { selector: { pool: 'nobody' } });
    await testEnv()
      .db('jobs')
      .where({ id: old.job_id })
      .update({ created_at: testEnv().db.raw("now() - interval '3 hours'") });
    const ids = async (...args: string[]) =>
      (JSON.parse(await me.ok('jobs', 'list', '--json', ...args)) as { jobs: Array<{ job_id: string }> }).jobs.map(
        (j) => j.job_id,
      );

    assert.deepEqual(await ids(), [recent.job_id, old.job_id]);
    assert.deepEqual(await ids('--since', '1h'), [recent.job_id]);
    assert.deepEqual(await ids('--until', '2h'), [old.job_id]);
    assert.deepEqual(await ids('--since', new Date(Date.now() - 4 * 3_600_000).toISOString(), '--until', '90m'), [
      old.job_id,
    ]);
    const bad = await me.run('jobs', 'list', '--since', 'yesterday');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /--since.*duration ago/);
  });

  it('compute run and compute jobs act in the workspace `compute workspaces use` chose; Surface A takes the header from sessions only', async function () {
    this.timeout(120_000);
    const me = await cliUser();
    const team = (await me.ok('workspaces', 'create', 'team-run')).trim();
    await me.ok('workspaces', 'use', team);
    const manifest = path.join(testEnv().dataDir, `run-${Date.now()}.json`);
    fs.writeFileSync(manifest, JSON.stringify({ type: 'COMMAND', command: 'echo team', selector: { pool: 'nobody' } }));
    const jobId = (await me.ok('run', manifest, '--no-follow')).trim();
    const row = await testEnv().db('jobs').where({ id: jobId }).first('workspace_id');
    assert.equal(row.workspace_id, team, 'submitted in the active workspace');
    const inTeam = JSON.parse(await me.ok('jobs', 'list', '--json')) as { jobs: Array<{ job_id: string }> };
    assert.deepEqual(
      inTeam.jobs.map((j) => j.job_id),
      [jobId],
    );
    assert.match(await me.ok('jobs', 'get', jobId), /^state\s+queued$/m);

    await me.ok('workspaces', 'use', '--clear');
    assert.deepEqual(
      (JSON.parse(await me.ok('jobs', 'list', '--json')) as { jobs: unknown[] }).jobs,
      [],
      'the personal workspace again',
    );
    const elsewhere = await me.run('jobs', 'get', jobId);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /resource\.not_found/);

    // On the API: a session in a workspace it is not a member of, or a key told another workspace, is 404.
    const stranger = await login();
    const asStranger = await fetch(`${testEnv().url}/api/compute/jobs/list`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        Authorization: `Bearer ${stranger.token}`,
        'X-Compute-Workspace': team,
      },
      body: '{}',
    });
    assert.equal(asStranger.status, 404);
    const { key } = await newWorkspace();
    const keyElsewhere = await fetch(`${testEnv().url}/api/compute/jobs/list`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-API-Key': key, 'X-Compute-Workspace': team },
      body: '{}',
    });
    assert.equal(keyElsewhere.status, 404);
  });
});
