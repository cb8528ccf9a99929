// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { cliConfigDir, compute as run } from '../support/cli';
import { testEnv } from '../support/env';
import { newWorkspace, ok } from '../support/http';

/** Operator mode: no session saved, so keys are minted straight into the database. */
const compute = (args: string[], env: Record<string, string> = {}) =>
  run(args, { env: { COMPUTE_CONFIG_DIR: cliConfigDir(), ...env } });

describe('npx compute admin keys create', () => {
  it('prints a key alone on stdout that the API accepts at once, for the default workspace', async () => {
    const out = await compute(['admin', 'keys', 'create', '--name', 'cli-default']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^cku[a-z0-9]*_[A-Za-z0-9_-]+\n$/);
    const key = out.stdout.trim();
    const sub = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo via cli key' }, key);
    const owner = await testEnv().db('jobs').where({ id: sub.job_id }).first('workspace_id');
    const named = await testEnv().db('workspaces').where({ id: owner.workspace_id }).first('name');
    assert.equal(named.name, 'default');
  });

  it('binds the key to --workspace, and refuses an unknown one without printing a key', async () => {
    const { workspaceId, key: otherKey } = await newWorkspace('cli-target');
    const out = await compute(['admin', 'keys', 'create', '--name', 'cli-ws', '--workspace', workspaceId]);
    assert.equal(out.code, 0, out.stderr);
    const key = out.stdout.trim();
    const sub = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo' }, key);
    assert.equal(
      (await ok('/compute/jobs/retrieve', { job_id: sub.job_id }, otherKey)).job_id,
      sub.job_id,
      'same workspace',
    );

    // Named for this test alone: other tests (the other lane's among them) make keys meanwhile.
    const name = `refused-${Date.now()}`;
    const bad = await compute(['admin', 'keys', 'create', '--name', name, '--workspace', 'ws_nope']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /workspace ws_nope not found/);
    assert.deepEqual(
      await testEnv().db('api_keys').where({ name }).pluck('id'),
      [],
      'the refused create minted no key',
    );
  });

  it('says plainly when the database is unreachable', async () => {
    const out = await compute(['admin', 'keys', 'create', '--name', 'x'], {
      DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/none',
    });
    assert.equal(out.code, 1);
    assert.equal(out.stdout, '');
    assert.match(out.stderr, /cannot reach the database at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/none/);
    assert.ok(!out.stderr.includes('secret') && !/\n\s+at /.test(out.stderr), out.stderr);
  });
});
