import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createApiKey } from '../../src/auth/api-keys';
import { agentPool, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { assertAccessible, openPage, screenshots, signIn, unexpectedErrors } from '../support/browser';
import { testEnv } from '../support/env';
import { post, registerNode } from '../support/http';
import { portalStack } from '../support/portal';
import { team } from '../support/team';
import { v0, v0ok } from '../support/v0';

// The portal's pages for running a workspace, in a real Chromium: keys and tokens (the secret
// shown once, refused by the API once revoked in the page), members (what each role may do, and
// nothing more shown), and agents (drain, remove).

/** A secret the page shows once, read from its field. */
const shownSecret = (page: Page, label: string) => page.getByRole('textbox', { name: label }).inputValue();

/** Clicks a row's destructive button, then confirms it. */
async function confirmIn(page: Page, rowText: string, label: string): Promise<void> {
  const row = page.locator('tbody tr').filter({ hasText: rowText });
  await row.getByRole('button', { name: label, exact: true }).click();
  await row.getByRole('button', { name: `Yes, ${label.toLowerCase()}` }).click();
}

describe("the portal's workspace pages", function () {
  this.timeout(180_000);
  const stack = portalStack();
  const agents = agentPool();

  it('creates a key and a token shown once with a copy button, which the API takes until each is revoked in the page', async () => {
    const { url, browser } = stack();
    const { context, page, errors } = await openPage(browser);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: url });
    const owner = await login();
    await signIn(page, url, owner.user.email);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await assertAccessible(page, 'the keys page');

    await page.getByLabel('Key name').fill('ci runner');
    await page.getByLabel('Kind').selectOption('user');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await shownSecret(page, 'Key ci runner');
    assert.match(key, /^\w+_\w+$/, 'prefix_secret');
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key, 'the copy button copies the secret');
    assert.equal((await post('/compute/jobs/list', {}, key)).status, 200, 'the new key works');
    await page.getByRole('button', { name: 'Done' }).click();
    assert.equal(await page.getByRole('textbox', { name: 'Key ci runner' }).count(), 0, 'the secret leaves the page');
    const [prefix] = key.split('_');
    await page.locator('tbody tr').filter({ hasText: 'ci runner' }).getByText(prefix).waitFor();
    assert.doesNotMatch(await page.content(), new RegExp(key), 'the listed key shows its prefix, never the secret');

    // The token by keyboard alone: its fields and button in tab order, Enter presses.
    await page.getByLabel('Token name').focus();
    await page.keyboard.type('robot');
    for (const next of ['Role', 'Expires in days']) {
      await page.keyboard.press('Tab');
      assert.equal(
        await page.evaluate('document.activeElement.closest("label")?.querySelector("span")?.textContent'),
        next,
      );
    }
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.textContent'), 'Create token');
    await page.keyboard.press('Enter');
    const token = await shownSecret(page, 'Token robot');
    assert.match(token, /^cpat_/);
    assert.equal((await v0('GET', '/jobs', { token })).status, 200, 'the new token works');
    await screenshots(page, 'keys');

    await confirmIn(page, 'ci runner', 'Revoke');
    await page
      .locator('tbody tr')
      .filter({ hasText: 'ci runner' })
      .getByText(/^Revoked/)
      .waitFor();
    assert.equal((await post('/compute/jobs/list', {}, key)).status, 401, 'the revoked key is refused');
    await confirmIn(page, 'robot', 'Revoke');
    await page
      .locator('tbody tr')
      .filter({ hasText: 'robot' })
      .getByText(/^Revoked/)
      .waitFor();
    assert.equal((await v0('GET', '/jobs', { token })).status, 401, 'the revoked token is refused');

    await page.getByLabel('Key name').fill('x'.repeat(100));
    await page.getByLabel('Key name').evaluate((e) => e.removeAttribute('maxlength'));
    await page.getByLabel('Key name').fill('x'.repeat(101));
    await page.getByRole('button', { name: 'Create key' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(
      await alert.innerText(),
      /^The request is invalid[\s\S]*name/,
      'the refusal as the API explained it, with the field',
    );
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it('shows a member no admin control, and the API refuses them anyway; an owner changes a role and removes a member', async () => {
    const { url, browser } = stack();
    const { ws, owner, admin, member } = await team();
    const inWs = { 'X-Compute-Workspace': ws.id };
    const { key: agentKey } = await createApiKey(testEnv().db, { workspaceId: ws.id, name: 'fleet', kind: 'agent' });
    const node = await registerNode(agentKey, { gpu: 'a100' }, 'gpu-box');
    await v0ok('POST', '/webhooks', { token: owner.token, headers: inWs, body: { url: 'http://127.0.0.1:9/hook' } });

    const seen = await openPage(browser);
    const page = seen.page;
    await signIn(page, url, member.user.email);
    const visit = async (path: string, ready: string) => {
      await page.goto(`${url}${path}?workspace=${ws.id}`);
      await page.getByText(ready).first().waitFor();
    };
    const none = async (name: string, what: string) =>
      assert.equal(await page.getByRole('button', { name, exact: true }).count(), 0, `${what}: no ${name}`);

    await visit('/agents', 'gpu-box');
    await none('Drain', 'agents');
    await none('Remove', 'agents');
    await visit('/keys', 'Access tokens');
    await none('Create token', 'tokens');
    assert.equal(await page.getByRole('button', { name: 'Create key' }).count(), 1, 'a member makes keys of their own');
    await visit('/members', owner.user.email.toLowerCase());
    await none('Invite', 'members');
    await none('Remove', 'members');
    assert.equal(await page.getByRole('combobox', { name: /^Role of/ }).count(), 0, 'no role to change');
    await visit('/webhooks', '127.0.0.1:9');
    await none('Create webhook', 'webhooks');
    await none('Rotate secret', 'webhooks');
    await none('Delete', 'webhooks');
    await visit('/usage', 'Limits');
    await none('Change limits', 'usage');
    assert.equal(await page.getByRole('link', { name: 'Audit log' }).count(), 0, 'no audit log in the menu');
    await assertAccessible(page, 'the usage page, as a member');
    await page.goto(`${url}/audit?workspace=${ws.id}`);
    await page.getByRole('alert').waitFor();
    assert.match(
      await page.getByRole('alert').innerText(),
      /^The role does not allow this\s+This needs the admin role/,
    );

    const as = { token: member.token, headers: inWs };
    const refused = [
      await v0('POST', `/agents/${node.nodeId}:drain`, { ...as, body: {} }),
      await v0('DELETE', `/agents/${node.nodeId}`, as),
      await v0('POST', '/tokens', { ...as, body: { name: 't' } }),
      await v0('POST', `/workspaces/${ws.id}/members`, { ...as, body: { email: 'x@example.test', role: 'member' } }),
      await v0('POST', '/webhooks', { ...as, body: { url: 'http://127.0.0.1:9/x' } }),
      await v0('PATCH', '/billing/limits', { ...as, body: { hardCapUsd: 1 } }),
      await v0('GET', `/workspaces/${ws.id}/audit`, as),
    ];
    assert.deepEqual(
      refused.map((r) => [r.status, r.body.code]),
      refused.map(() => [403, 'auth.forbidden']),
    );
    await seen.context.close();

    const { context, page: ownerPage, errors } = await openPage(browser);
    await signIn(ownerPage, url, owner.user.email);
    await ownerPage.goto(`${url}/members?workspace=${ws.id}`);
    await ownerPage.getByRole('combobox', { name: `Role of ${member.user.email.toLowerCase()}` }).selectOption('admin');
    await ownerPage.getByText(`${member.user.email.toLowerCase()} is now an admin`).waitFor();
    const roleOf = async (email: string) =>
      (
        (await v0ok('GET', `/workspaces/${ws.id}/members`, { token: owner.token })).items as Array<{
          email: string;
          role: string;
        }>
      ).find((m) => m.email === email.toLowerCase())?.role;
    assert.equal(await roleOf(member.user.email), 'admin');
    await ownerPage.getByLabel('Member e-mail').fill('Newcomer@Example.test');
    await ownerPage.getByRole('button', { name: 'Invite' }).click();
    await ownerPage.getByText('newcomer@example.test is now a member').waitFor();
    await assertAccessible(ownerPage, 'the members page');
    await screenshots(ownerPage, 'members');
    await confirmIn(ownerPage, admin.user.email.toLowerCase(), 'Remove');
    await ownerPage.getByText(/was removed: \d+ keys, \d+ tokens and \d+ agents/).waitFor();
    assert.equal(await roleOf(admin.user.email), undefined, 'removed');
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it('lists agents with their state, labels, heartbeat and current job; an admin drains and removes one', async () => {
    const { url, browser } = stack();
    const owner = await login();
    const key = (await post('/compute/api-keys/create', { name: 'fleet', kind: 'agent' }, owner.token)).body.payload
      .key as string;
    const agent = await agents({ key, labels: { pool: 'portal' } });
    const job = await v0ok('POST', '/jobs', { token: owner.token, body: { type: 'COMMAND', command: 'sleep 30' } });
    await waitFor(
      'the job running',
      async () => (await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 })).state === 'RUNNING',
    );

    const { context, page, errors } = await openPage(browser);
    await signIn(page, url, owner.user.email);
    await page.getByRole('link', { name: 'Agents' }).click();
    const row = page.locator('tbody tr').filter({ hasText: agent.nodeId() });
    await row.getByText('ONLINE').waitFor();
    await row.getByText('pool=portal').waitFor();
    await row.getByRole('link', { name: job.id }).waitFor();
    await assertAccessible(page, 'the agents page');
    await screenshots(page, 'agents', () => row.waitFor());

    await row.getByRole('button', { name: 'Drain' }).click();
    await row.getByText(/DRAINING|DRAINED/).waitFor();
    assert.match(
      (await v0ok('GET', `/agents/${agent.nodeId()}`, { token: owner.token, status: 200 })).state,
      /DRAINING|DRAINED/,
    );
    await confirmIn(page, agent.nodeId(), 'Remove');
    await row.waitFor({ state: 'detached' });
    assert.equal((await v0('GET', `/agents/${agent.nodeId()}`, { token: owner.token })).status, 404, 'removed');
    await waitFor(
      'the job requeued',
      async () => (await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 })).state === 'QUEUED',
    );
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: owner.token, status: 200 });
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });
});
