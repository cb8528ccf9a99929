// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createApiKey } from '../../src/auth/api-keys';
import { agentPool } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';

// The TypeScript client as its users get it: `npm pack` of clients/typescript, installed into an
// empty project, and a program of that project that submits a job (twice, with one
// Idempotency-Key), follows its log as it is written and reads how it ended, against the stack.

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

const PROGRAM = `
const { createComputeClient } = require('@compute/client');
(async () => {
  const client = createComputeClient({ baseUrl: process.env.API_URL, token: process.env.TOKEN });
  const manifest = { type: 'COMMAND', command: 'echo hello; sleep 1; echo world >&2', labels: { via: 'ts-client' } };
  const job = await client.submit(manifest, { idempotencyKey: process.env.KEY });
  const again = await client.submit(manifest, { idempotencyKey: process.env.KEY });
  const lines = [];
  const end = await client.followLogs(job.id, (l) => lines.push([l.stream, l.line]));
  const final = await client.waitForTerminal(job.id, { timeoutMs: 60000 });
  const { data } = await client.api.GET('/v0/jobs/{id}', { params: { path: { id: job.id } } });
  console.log(JSON.stringify({ id: job.id, again: again.id, lines, end, state: final.state, exitCode: data.exitCode }));
})().catch((err) => { console.error(err); process.exit(1); });
`;

describe('the TypeScript client, packed and installed into an empty project', function () {
  this.timeout(240_000);
  const agents = agentPool();
  let tmp = '';
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  it('submits a job once for one Idempotency-Key, follows its log and reads its end', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-ts-client-'));
    const { stdout: packed } = await run('npm', ['pack', '--json', '--pack-destination', tmp], {
      cwd: path.join(ROOT, 'clients/typescript'),
    });
    const [{ filename, files }] = JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>;
    assert.deepEqual(files.map((f) => f.path).sort(), [
      'dist/index.d.ts',
      'dist/index.js',
      'dist/schema.d.ts',
      'dist/schema.js',
      'package.json',
    ]);
    const project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'uses-compute', private: true }));
    await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(tmp, filename)], {
      cwd: project,
    });
    fs.writeFileSync(path.join(project, 'main.js'), PROGRAM);

    const session = await login();
    const { key } = await createApiKey(testEnv().db, {
      workspaceId: session.user.workspaceId,
      name: 'ts-client-agent',
      kind: 'agent',
    });
    await agents({ key });
    const { stdout } = await run(process.execPath, ['main.js'], {
      cwd: project,
      env: { PATH: process.env.PATH, API_URL: testEnv().url, TOKEN: session.token, KEY: `ts-${Date.now()}` },
    });
    const out = JSON.parse(stdout);
    assert.equal(out.again, out.id, 'the repeated submit answers the same job');
    assert.deepEqual(out.lines, [
      ['stdout', 'hello'],
      ['stderr', 'world'],
    ]);
    assert.deepEqual([out.end.state, out.state, out.exitCode], ['SUCCEEDED', 'SUCCEEDED', 0]);
  });
});
