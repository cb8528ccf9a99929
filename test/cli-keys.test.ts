import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { childEnvironment } from '../src/config';
import { testEnv } from './support/env';
import { newWorkspace, ok, post } from './support/http';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..');

/** `npx compute …` as a person types it, against the suite's database. */
async function compute(args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', 'compute', ...args], {
      cwd: ROOT,
      env: childEnvironment({ DATABASE_URL: testEnv().vars.DATABASE_URL, ...env }),
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npx compute keys create', () => {
  it('prints a key alone on stdout that the API accepts at once, for the default workspace', async () => {
    const out = await compute(['keys', 'create', '--name', 'cli-default']);
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
    const out = await compute(['keys', 'create', '--name', 'cli-ws', '--workspace', workspaceId]);
    assert.equal(out.code, 0, out.stderr);
    const key = out.stdout.trim();
    const sub = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo' }, key);
    assert.equal((await ok('/compute/jobs/retrieve', { job_id: sub.job_id }, otherKey)).job_id, sub.job_id, 'same workspace');

    const bad = await compute(['keys', 'create', '--name', 'x', '--workspace', 'ws_nope']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stdout, '');
    assert.match(bad.stderr, /workspace ws_nope not found/);
    assert.equal((await post('/compute/jobs/list', {}, 'cku_not_a_key')).status, 401);
  });

  it('says plainly when the database is unreachable', async () => {
    const out = await compute(['keys', 'create', '--name', 'x'], { DATABASE_URL: 'postgres://u:secret@127.0.0.1:1/none' });
    assert.equal(out.code, 1);
    assert.equal(out.stdout, '');
    assert.match(out.stderr, /cannot reach the database at postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/none/);
    assert.ok(!out.stderr.includes('secret') && !/\n\s+at /.test(out.stderr), out.stderr);
  });
});
