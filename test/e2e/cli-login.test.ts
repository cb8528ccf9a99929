// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { newEmail } from '../support/auth';
import { cliConfigDir, compute, typeLoginCode } from '../support/cli';
import { testEnv } from '../support/env';
import { newWorkspace, post } from '../support/http';
import { garbageForTheService } from '../support/settings';
import { v0 } from '../support/v0';

describe('the portal flow from the CLI', () => {
  it('logs in by code, then creates, lists and revokes keys through the API', async () => {
    const email = newEmail();
    const env = { COMPUTE_CONFIG_DIR: cliConfigDir() };
    const login = await compute(['login', '--email', email], { env, interact: typeLoginCode(email) });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stderr, /Logged in as .* \(workspace ws_/);
    const sessionFile = path.join(env.COMPUTE_CONFIG_DIR, 'session.json');
    assert.equal(fs.statSync(sessionFile).mode & 0o777, 0o600, 'only its owner can read the session');
    const session = JSON.parse(fs.readFileSync(sessionFile, 'utf8'));
    // print-token: the session token alone, usable as a Bearer on /v0.
    const printed = await compute(['print-token'], { env });
    assert.equal(printed.code, 0, printed.stderr);
    assert.equal(printed.stdout, `${session.token}\n`);
    assert.equal((await v0('GET', '/workspaces', { token: printed.stdout.trim() })).status, 200);

    const created = await compute(
      [
        'keys',
        'create',
        '--name',
        'from-cli',
        '--kind',
        'agent',
        '--max-concurrent-jobs',
        '2',
        '--allowed-job-types',
        'COMMAND',
      ],
      { env },
    );
    assert.equal(created.code, 0, created.stderr);
    const key = created.stdout.trim();
    assert.match(key, /^cka[a-z0-9]+_\S+$/, 'the key alone on stdout');
    const job = await post('/compute/jobs/submit', { type: 'COMMAND', command: 'echo' }, key);
    assert.equal(job.status, 200);
    const owner = await testEnv().db('jobs').where({ id: job.body.payload.job_id }).first('workspace_id');
    assert.equal(owner.workspace_id, session.workspaceId, "the key acts in the logged-in user's workspace");

    const listed = await compute(['keys', 'list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    const keys = JSON.parse(listed.stdout) as Array<{ id: string; prefix: string; quotas: unknown }>;
    assert.equal(keys.length, 1);
    assert.equal(keys[0].prefix, key.split('_')[0]);
    assert.deepEqual(keys[0].quotas, { maxConcurrentJobs: 2, allowedJobTypes: ['COMMAND'] });
    const table = await compute(['keys', 'list'], { env });
    assert.match(table.stdout, /^ID\s+PREFIX\s+NAME\s+KIND\s+QUOTAS/);
    assert.match(table.stdout, /from-cli\s+agent\s+2 at once, COMMAND/);

    const revoked = await compute(['keys', 'revoke', keys[0].id], { env });
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.equal((await post('/compute/jobs/list', {}, key)).status, 401);

    // logout ends the session on the service: a copy of its token is of no use afterwards.
    const out = await compute(['logout'], { env });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stderr, /^Logged out\.$/m);
    assert.ok(!fs.existsSync(sessionFile));
    assert.equal((await v0('GET', '/workspaces', { token: session.token })).status, 401);
  });

  it('refuses a wrong code and needs a login before listing keys', async () => {
    const email = newEmail();
    const env = { COMPUTE_CONFIG_DIR: cliConfigDir() };
    const wrong = await compute(['login', '--email', email], {
      env,
      interact: async (stdin) => {
        await typeLoginCode(email)({ write: () => true } as unknown as NodeJS.WritableStream);
        stdin.write(testEnv().mailbox.codeFor(email) === '000000' ? '000001\n' : '000000\n');
      },
    });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /error: The code is wrong, expired or already used.*\[auth\.unauthenticated\]/);
    assert.ok(!fs.existsSync(path.join(env.COMPUTE_CONFIG_DIR, 'session.json')));
    const list = await compute(['keys', 'list'], { env });
    assert.equal(list.code, 1);
    assert.match(list.stderr, /run `compute login` first/);
    const token = await compute(['print-token'], { env });
    assert.equal(token.code, 1);
    assert.equal(token.stdout, '');
    assert.match(token.stderr, /no live session: run `compute login` first/);
  });

  it('uses the key `npm run dev` keeps when given no other credentials', async () => {
    const { key } = await newWorkspace();
    const dataDir = cliConfigDir();
    fs.writeFileSync(path.join(dataDir, 'dev-api-key'), `${key}\n`);
    const env = { COMPUTE_CONFIG_DIR: cliConfigDir(), COMPUTE_DATA_DIR: dataDir };
    const listed = await compute(['jobs', 'list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), { jobs: [], nextCursor: null });
    const none = await compute(['jobs', 'list'], { env: { ...env, COMPUTE_DATA_DIR: cliConfigDir() } });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no credentials: pass --key, set COMPUTE_API_KEY, or run `compute login`/);
  });

  it("logs in and acts with garbage in every variable of the service's, none of which it reads", async () => {
    const email = newEmail();
    const env = { ...garbageForTheService(), COMPUTE_CONFIG_DIR: cliConfigDir() };
    const help = await compute(['--help'], { env });
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: compute /);
    const login = await compute(['login', '--email', email], { env, interact: typeLoginCode(email) });
    assert.equal(login.code, 0, login.stderr);
    assert.match(login.stderr, /Logged in as .* \(workspace ws_/);
    const listed = await compute(['keys', 'list', '--json'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout), []);
  });
});
