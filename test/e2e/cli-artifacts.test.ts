// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { saveSession } from '../../src/cli/session';
import { login } from '../support/auth';
import { cliConfigDir, compute } from '../support/cli';
import { testEnv } from '../support/env';
import { newWorkspace, ok } from '../support/http';

describe('compute artifacts', () => {
  it('uploads, lists and downloads with a login session, resumes a cut download, and verifies the sha256', async () => {
    const session = await login();
    const configDir = cliConfigDir();
    await saveSession(configDir, {
      apiUrl: testEnv().url,
      token: session.token,
      expiresAt: session.expiresAt,
      email: session.user.email,
      workspaceId: session.user.workspaceId,
    });
    const env = { COMPUTE_CONFIG_DIR: configDir };
    const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi' }, session.token);
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const source = path.join(configDir, 'build.bin');
    fs.writeFileSync(source, bytes);

    const up = await compute(['artifacts', 'upload', job.job_id, source, '--name', 'dist/build.bin'], { env });
    assert.equal(up.code, 0, up.stderr);
    const id = up.stdout.trim();
    assert.match(id, /^art_/);

    const listed = await compute(['artifacts', 'list', job.job_id, '--json'], { env });
    assert.deepEqual(
      JSON.parse(listed.stdout).map((a: { id: string; name: string; size: number }) => [a.id, a.name, a.size]),
      [[id, 'dist/build.bin', bytes.length]],
    );

    const target = path.join(configDir, 'out.bin');
    const down = await compute(['artifacts', 'download', job.job_id, 'dist/build.bin', '-o', target], { env });
    assert.equal(down.code, 0, down.stderr);
    assert.ok(fs.readFileSync(target).equals(bytes));
    assert.match(down.stderr, /sha256 verified/);

    // A download cut in the middle: the next run asks for the rest only.
    fs.truncateSync(target, 1_000_000);
    const resumed = await compute(['artifacts', 'download', job.job_id, id, '-o', target], { env });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.match(resumed.stderr, /resuming at byte 1000000/);
    assert.ok(fs.readFileSync(target).equals(bytes));
  });

  it('says that presigned URLs need a session when it is given an API key', async () => {
    const { key } = await newWorkspace();
    const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi' }, key);
    const file = path.join(cliConfigDir(), 'x.txt');
    fs.writeFileSync(file, 'x');
    const run = await compute(['artifacts', 'upload', job.job_id, file], {
      env: { COMPUTE_API_KEY: key, COMPUTE_CONFIG_DIR: cliConfigDir() },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /\[auth\.forbidden\].*compute login/);
    assert.ok(!run.stderr.includes('    at '), 'no stack trace');
  });
});
