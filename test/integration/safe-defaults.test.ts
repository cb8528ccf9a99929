import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mailerFor } from '../../src/auth/mailer';
import { childEnvironment, loadApiConfig } from '../../src/config';
import { freePort } from '../../src/stack/ports';
import { newEmail } from '../support/auth';
import { testEnv } from '../support/env';
import { captureLog } from '../support/log-capture';
import { PRODUCTION_SECRETS } from '../support/settings';

const ROOT = path.resolve(__dirname, '../..');

describe('safe defaults', () => {
  let api: ChildProcess | undefined;
  // An API that did start (the failure this guards against) does not outlive its test.
  afterEach(() => {
    if (api && api.exitCode === null && api.signalCode === null) api.kill('SIGKILL');
  });

  it('reads a missing NODE_ENV as production: no invented JWT secret, no mailer without SMTP_URL', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-defaults-'));
    try {
      assert.equal(loadApiConfig({ ...PRODUCTION_SECRETS, COMPUTE_DATA_DIR: dataDir }).env, 'production');
      const { JWT_SECRET, SMTP_URL, ...rest } = PRODUCTION_SECRETS;
      assert.throws(
        () => loadApiConfig({ ...rest, COMPUTE_DATA_DIR: dataDir }),
        /JWT_SECRET is required in production.*; SMTP_URL is required in production/,
      );
      assert.deepEqual(fs.readdirSync(dataDir), [], 'no secret was written');
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('never logs a login code in production, whether the mail goes out or the relay refuses', async () => {
    const captured = captureLog('trace');
    const email = newEmail();
    const code = String(100_000 + Math.floor(Math.random() * 900_000));
    await mailerFor(
      loadApiConfig({ ...PRODUCTION_SECRETS, SMTP_URL: testEnv().mailbox.url }),
      captured.log,
    ).sendLoginCode(email, code, 10);
    assert.equal(testEnv().mailbox.codeFor(email), code, 'the code went out by mail');

    const refused = `smtp://127.0.0.1:${await freePort()}`;
    await mailerFor(loadApiConfig({ ...PRODUCTION_SECRETS, SMTP_URL: refused }), captured.log).sendLoginCode(
      email,
      code,
      10,
    );
    assert.ok(
      captured.lines().some((l) => l.msg === 'sending a login code failed'),
      captured.text(),
    );
    assert.doesNotMatch(captured.text(), new RegExp(code));
  });

  it('refuses to start the API without NODE_ENV and JWT_SECRET, saying why', async () => {
    const env = childEnvironment(testEnv().vars);
    delete env.NODE_ENV;
    delete env.JWT_SECRET;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    api = child;
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    assert.notEqual(code, 0, output);
    assert.match(output, /JWT_SECRET is required in production/);
  });
});
