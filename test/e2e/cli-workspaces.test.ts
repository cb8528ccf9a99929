// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { newEmail } from '../support/auth';
import { cliConfigDir, cliUser, compute, type CliRun } from '../support/cli';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

const WORKSPACE_ID = /^ws_[0-9a-z]{26}$/;
const membersOf = async (ws: string, token: string) =>
  (
    (await v0ok('GET', `/workspaces/${ws}/members?pageSize=200`, { token })).items as Array<{
      userId: string;
      email: string;
      role: string;
    }>
  )
    .map((m) => `${m.email}:${m.role}`)
    .sort();

/** A refusal as the CLI prints it: one line on stderr, nothing on stdout, exit 1. */
function assertOneLineError(out: CliRun, pattern: RegExp): void {
  assert.equal(out.code, 1, out.stderr);
  assert.equal(out.stdout, '');
  assert.match(out.stderr, /^error: [^\n]+\n$/, 'one line');
  assert.match(out.stderr, pattern);
}

describe('compute workspaces, members and tokens on /v0 with the login session', () => {
  it('creates a workspace, uses it, and adds, lists, updates and removes members there', async function () {
    this.timeout(180_000);
    const owner = await cliUser();
    const { token, workspaceId: personal } = owner.session;
    const ws = (await owner.ok('workspaces', 'create', 'team-x', '--region', 'eu-west')).trim();
    assert.match(ws, WORKSPACE_ID, 'the new ID alone on stdout');

    const before = JSON.parse(await owner.ok('workspaces', 'list', '--json')) as Array<{
      id: string;
      role: string;
      defaultRegion: string;
      active: boolean;
    }>;
    assert.deepEqual(
      before.map((w) => [w.id, w.role, w.defaultRegion, w.active]).sort(),
      [
        [personal, 'owner', 'local', true],
        [ws, 'owner', 'eu-west', false],
      ].sort(),
    );

    assert.match(
      (await owner.run('workspaces', 'use', ws)).stderr,
      new RegExp(`acting in ${ws} \\(team-x, you are owner\\)`),
    );
    const table = await owner.ok('workspaces', 'list');
    assert.match(table, /^ACTIVE\s+ID\s+NAME\s+ROLE\s+REGION\s+PLAN\s+CREATED\n/);
    assert.match(table, new RegExp(`^\\*\\s+${ws}\\s+team-x\\s+owner\\s+eu-west\\s+hobby\\s`, 'm'));
    assert.match(table, new RegExp(`^\\s+${personal}\\s`, 'm'), 'the personal workspace is listed, unmarked');

    // members add without --workspace acts in the workspace chosen by `use`, not the personal one.
    const colleague = newEmail().toLowerCase();
    await owner.ok('members', 'add', colleague, '--role', 'member');
    assert.deepEqual(await membersOf(ws, token), [`${colleague}:member`, `${owner.session.email}:owner`].sort());
    assert.deepEqual(await membersOf(personal, token), [`${owner.session.email}:owner`]);

    const listed = JSON.parse(await owner.ok('members', 'list', '--json')) as Array<{
      userId: string;
      email: string;
      role: string;
    }>;
    assert.deepEqual(listed.map((m) => `${m.email}:${m.role}`).sort(), await membersOf(ws, token));
    const colleagueId = listed.find((m) => m.email === colleague)!.userId;
    const memberTable = await owner.ok('members', 'list');
    assert.match(memberTable, /^USER ID\s+EMAIL\s+ROLE\s+ADDED\n/);
    assert.match(memberTable, new RegExp(`^${colleagueId}\\s+${colleague.replaceAll('.', '\\.')}\\s+member\\s`, 'm'));

    await owner.ok('members', 'update', colleague.toUpperCase(), '--role', 'admin');
    assert.deepEqual(await membersOf(ws, token), [`${colleague}:admin`, `${owner.session.email}:owner`].sort());
    assertOneLineError(
      await owner.run('members', 'update', 'nobody@example.test', '--role', 'admin'),
      new RegExp(`nobody@example\\.test is not a member of ${ws}`),
    );

    await owner.ok('members', 'remove', colleagueId);
    assert.deepEqual(await membersOf(ws, token), [`${owner.session.email}:owner`]);

    await owner.ok('workspaces', 'update', ws, '--name', 'renamed', '--region', 'us-east');
    const after = await v0ok('GET', `/workspaces/${ws}`, { token });
    assert.equal(after.name, 'renamed');
    assert.equal(after.defaultRegion, 'us-east');

    // --workspace wins over the active one; --clear goes back to the personal workspace.
    await owner.ok('members', 'add', colleague, '--role', 'member', '--workspace', personal);
    assert.deepEqual(await membersOf(personal, token), [`${colleague}:member`, `${owner.session.email}:owner`].sort());
    await owner.ok('workspaces', 'use', '--clear');
    const cleared = JSON.parse(await owner.ok('workspaces', 'list', '--json')) as Array<{
      id: string;
      active: boolean;
    }>;
    assert.deepEqual(
      cleared.filter((w) => w.active).map((w) => w.id),
      [personal],
    );
    const personalMembers = JSON.parse(await owner.ok('members', 'list', '--json')) as Array<{ email: string }>;
    assert.ok(
      personalMembers.some((m) => m.email === colleague),
      'members list acts in the personal workspace again',
    );
  });

  it('issues a token that works as a Bearer in the active workspace, lists it, and revokes it (401 after)', async function () {
    this.timeout(120_000);
    const owner = await cliUser();
    const ws = (await owner.ok('workspaces', 'create', 'ci')).trim();
    await owner.ok('workspaces', 'use', ws);

    const created = await owner.run(
      'tokens',
      'create',
      '--name',
      'ci-bot',
      '--role',
      'admin',
      '--expires-in-days',
      '7',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^cpat_\S+\n$/, 'the token alone on stdout');
    assert.match(created.stderr, new RegExp(`created \\S+ \\(admin\\) in ${ws}, expires `));
    const cpat = created.stdout.trim();

    const seen = await v0ok('GET', '/workspaces', { token: cpat });
    assert.deepEqual(
      seen.items.map((w: { id: string }) => w.id),
      [ws],
      'the token acts in the workspace it was issued in',
    );
    assert.equal((await v0('GET', `/workspaces/${ws}/members`, { token: cpat })).status, 200);

    const tokens = JSON.parse(await owner.ok('tokens', 'list', '--json')) as Array<{
      id: string;
      name: string;
      role: string;
      workspaceId: string;
      expiresAt: string;
      revokedAt: string | null;
    }>;
    assert.equal(tokens.length, 1);
    assert.deepEqual(
      [tokens[0].name, tokens[0].role, tokens[0].workspaceId, tokens[0].revokedAt],
      ['ci-bot', 'admin', ws, null],
    );
    const days = (Date.parse(tokens[0].expiresAt) - Date.now()) / 86_400_000;
    assert.ok(days > 6.9 && days <= 7, `expires in 7 days, not ${days}`);
    assert.match(await owner.ok('tokens', 'list'), new RegExp(`^${tokens[0].id}\\s+ci-bot\\s+admin\\s`, 'm'));
    const personalTokens = await v0ok('GET', '/tokens', { token: owner.session.token });
    assert.deepEqual(personalTokens.items, [], 'not issued in the personal workspace');

    assert.match((await owner.run('tokens', 'revoke', tokens[0].id)).stderr, new RegExp(`revoked ${tokens[0].id}`));
    const refused = await v0('GET', '/workspaces', { token: cpat });
    assert.equal(refused.status, 401);
    assert.equal(refused.body.code, 'auth.unauthenticated');
    const revoked = JSON.parse(await owner.ok('tokens', 'list', '--json')) as Array<{ revokedAt: string | null }>;
    assert.ok(revoked[0].revokedAt, 'listed as revoked');
  });

  it('gives a member who tries to issue a token one line with auth.forbidden and exit 1', async function () {
    this.timeout(120_000);
    const { ws, owner, member } = await team();
    const cli = await cliUser(member.user.email);
    await cli.ok('workspaces', 'use', ws.id);
    assertOneLineError(await cli.run('tokens', 'create', '--name', 'sneaky'), /\[auth\.forbidden\]/);
    assertOneLineError(await cli.run('members', 'add', newEmail(), '--role', 'member'), /\[auth\.forbidden\]/);
    assert.deepEqual(
      (await v0ok('GET', '/tokens', { token: owner.token, headers: { 'X-Compute-Workspace': ws.id } })).items,
      [],
      'no token was issued',
    );
    assertOneLineError(
      await cli.run('tokens', 'create', '--name', 'x', '--role', 'boss'),
      /--role.*boss.*member, admin, owner/,
    );
  });

  it('refuses a mistyped or foreign workspace in `use` and keeps acting where it did', async function () {
    this.timeout(120_000);
    const owner = await cliUser();
    const ws = (await owner.ok('workspaces', 'create', 'mine')).trim();
    await owner.ok('workspaces', 'use', ws);
    const typo = `${ws.slice(0, -1)}${ws.endsWith('0') ? '1' : '0'}`;
    assertOneLineError(
      await owner.run('workspaces', 'use', typo),
      new RegExp(`cannot use ${typo}: .*\\[resource\\.not_found\\].*compute workspaces list`),
    );
    const { ws: foreign } = await team();
    assertOneLineError(await owner.run('workspaces', 'use', foreign.id), /\[resource\.not_found\]/);
    const listed = JSON.parse(await owner.ok('workspaces', 'list', '--json')) as Array<{ id: string; active: boolean }>;
    assert.deepEqual(
      listed.filter((w) => w.active).map((w) => w.id),
      [ws],
      'the refused ones were not kept',
    );
  });

  it('says to run `compute login` when there is no session', async () => {
    const env = { COMPUTE_CONFIG_DIR: cliConfigDir() };
    for (const args of [
      ['tokens', 'list'],
      ['workspaces', 'use', 'ws_x'],
      ['members', 'list'],
    ]) {
      assertOneLineError(await compute(args, { env }), /no live session: run `compute login` first/);
    }
  });

  it('follows nextPageToken to list every member past one page', async function () {
    this.timeout(120_000);
    const owner = await cliUser();
    const ws = (await owner.ok('workspaces', 'create', 'big')).trim();
    const emails = Array.from({ length: 205 }, () => newEmail().toLowerCase());
    for (let i = 0; i < emails.length; i += 20) {
      await Promise.all(
        emails
          .slice(i, i + 20)
          .map((email) =>
            v0ok('POST', `/workspaces/${ws}/members`, { token: owner.session.token, body: { email, role: 'member' } }),
          ),
      );
    }
    const listed = JSON.parse(await owner.ok('members', 'list', '--json', '--workspace', ws)) as Array<{
      email: string;
    }>;
    assert.equal(listed.length, 206);
    assert.deepEqual(listed.map((m) => m.email).sort(), [...emails, owner.session.email].sort());
  });
});
