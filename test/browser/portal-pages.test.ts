import assert from 'node:assert/strict';
import fs from 'node:fs';
import { waitFor } from '../support/agents';
import { login } from '../support/auth';
import { assertAccessible, openPage, screenshots, signIn, unexpectedErrors } from '../support/browser';
import { post } from '../support/http';
import { portalStack } from '../support/portal';
import { v0, v0ok } from '../support/v0';
import { team } from '../support/team';
import { WebhookReceiver } from '../support/webhook-receiver';

// The portal's webhooks (create with the secret shown once, deliveries with their status,
// redeliver, rotate), audit log (filters, the JSONL download) and usage and limits pages, in a
// real Chromium against the real stack.

describe("the portal's webhooks, audit and usage pages", function () {
  this.timeout(180_000);
  const stack = portalStack();

  it('creates a webhook, shows its deliveries with their status, redelivers one and rotates the secret', async () => {
    const { url, browser } = stack();
    const receiver = await new WebhookReceiver().start();
    try {
      const owner = await login();
      const { context, page, errors } = await openPage(browser);
      await signIn(page, url, owner.user.email);
      await page.getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description').fill('ops pager');
      await page.getByLabel('job.transitioned').uncheck();
      await page.getByRole('button', { name: 'Create webhook' }).click();
      const secret = await page.getByRole('textbox', { name: `Signing secret of ${receiver.url}` }).inputValue();
      assert.match(secret, /^whsec_/);
      const [hook] = (await v0ok('GET', '/webhooks', { token: owner.token, status: 200 })).items;
      assert.deepEqual(
        [hook.url, hook.events, hook.description],
        [receiver.url, ['job.created', 'job.terminal'], 'ops pager'],
      );
      await assertAccessible(page, 'the webhooks page');

      // The receiver refuses the first event, so one delivery waits for its retry.
      receiver.respond = (_r, all) => ({ status: all.length === 1 ? 500 : 204 });
      const job = await v0ok('POST', '/jobs', {
        token: owner.token,
        body: { type: 'COMMAND', command: 'echo hook', selector: { nobody: 'here' } },
      });
      await v0ok('POST', `/jobs/${job.id}:cancel`, { token: owner.token, status: 200 });
      await receiver.waitFor(
        (all) => all.filter((r) => r.answered === 204).length >= 2,
        30_000,
        'both events delivered',
      );
      const signature = receiver.received[0].headers['webhook-signature'];
      assert.match(signature, /^v1,/, 'signed');

      await page.getByRole('link', { name: receiver.url }).click();
      const rows = page.getByRole('region', { name: 'Deliveries list' }).locator('tbody tr');
      await rows.filter({ hasText: 'succeeded' }).nth(1).waitFor({ timeout: 15_000 });
      const statuses = (await rows.locator('td:nth-child(2) .state').allInnerTexts()).sort();
      assert.deepEqual(
        statuses,
        ['pending', 'succeeded', 'succeeded'],
        'the refused attempt (retried: pending) and the two that got through',
      );
      await page.getByLabel('Status').selectOption('succeeded');
      await rows.first().waitFor();
      await waitFor('only succeeded deliveries shown', async () =>
        (await rows.locator('td:nth-child(2) .state').allInnerTexts()).every((s) => s === 'succeeded'),
      );
      await assertAccessible(page, 'the deliveries page');
      await screenshots(page, 'webhook-deliveries', () => rows.first().waitFor());

      const before = receiver.received.length;
      const terminal = rows.filter({ hasText: 'job.terminal' });
      await terminal.getByRole('button', { name: 'Redeliver' }).click();
      await page.getByText(/is sent again/).waitFor();
      await receiver.waitFor((all) => all.length > before, 15_000, 'the redelivery');
      assert.equal(receiver.received[before].event.type, 'job.terminal');
      await rows.filter({ hasText: '(redelivery)' }).first().waitFor({ timeout: 15_000 });

      await page.getByRole('link', { name: 'Webhooks', exact: true }).first().click();
      await page.getByRole('button', { name: 'Rotate secret' }).click();
      const rotated = await page.getByRole('textbox', { name: /^New signing secret of/ }).inputValue();
      assert.match(rotated, /^whsec_/);
      assert.notEqual(rotated, secret);
      await page.getByRole('button', { name: 'Done' }).click();
      await screenshots(page, 'webhooks');
      assert.deepEqual(unexpectedErrors(errors), []);
      await context.close();
    } finally {
      await receiver.stop();
    }
  });

  it('filters the audit log and downloads it as JSONL', async () => {
    const { url, browser } = stack();
    const owner = await login();
    for (const name of ['one', 'two']) await post('/compute/api-keys/create', { name, kind: 'agent' }, owner.token);
    const { context, page, errors } = await openPage(browser);
    await signIn(page, url, owner.user.email);
    await page.getByRole('link', { name: 'Audit log' }).click();
    const rows = page.getByRole('region', { name: 'Audit entries' }).locator('tbody tr');
    await rows.filter({ hasText: 'key.create' }).nth(1).waitFor();
    await page.getByLabel('Action').fill('key.create');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/action=key.create/);
    await waitFor(
      'only the key.create entries shown',
      async () => (await rows.locator('td:nth-child(2)').allInnerTexts()).join() === 'key.create,key.create',
    );
    await assertAccessible(page, 'the audit log');
    await screenshots(page, 'audit', () => rows.first().waitFor());

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download JSONL' }).click(),
    ]);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string; details: { name?: string } });
    assert.deepEqual(
      lines.map((l) => l.action),
      ['key.create', 'key.create'],
      'the filter applies to the download',
    );
    assert.match(download.suggestedFilename(), /^audit-ws_\w+\.jsonl$/);
    const direct = await v0('GET', `/workspaces/${owner.user.workspaceId}/audit?format=jsonl&action=key.create`, {
      token: owner.token,
    });
    assert.deepEqual(
      lines,
      direct.body
        .trim()
        .split('\n')
        .map((l: string) => JSON.parse(l)),
      'the same entries the API streams',
    );
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it('shows usage and limits, and an admin changes the hard cap', async () => {
    const { url, browser } = stack();
    // An admin, not the owner, of a team workspace: the role the change needs, and no more.
    const { ws, admin } = await team();
    const { context, page, errors } = await openPage(browser);
    await signIn(page, url, admin.user.email);
    await page.goto(`${url}/usage?workspace=${ws.id}`);
    await page.getByText('Managed pool, estimate').waitFor();
    await page.getByText('The hobby plan has no invoices.').waitFor();
    await page.getByRole('button', { name: 'Change limits' }).click();
    await page.getByLabel('Hard cap (USD)').fill('12.50');
    // The click returns once it is dispatched; the page's PATCH is read back only once answered.
    const saved = page.waitForResponse(
      (r) => r.url().endsWith('/v0/billing/limits') && r.request().method() === 'PATCH',
    );
    await page.getByRole('button', { name: 'Save limits' }).click();
    assert.equal((await saved).status(), 202);
    const limits = await v0ok('GET', '/billing/limits', {
      token: admin.token,
      headers: { 'X-Compute-Workspace': ws.id },
      status: 200,
    });
    assert.equal(limits.pending?.hardCapUsd ?? limits.hardCapUsd, 12.5, 'the cap the page sent');
    await page
      .getByText(/hard \$12\.50|Hard cap: \$12\.50/)
      .first()
      .waitFor();

    await page.getByRole('button', { name: 'Change limits' }).click();
    await page.getByLabel('Soft cap (USD)').fill('-1');
    await page.getByRole('button', { name: 'Save limits' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(await page.getByRole('alert').innerText(), /^The request is invalid[\s\S]*softCapUsd/);
    await assertAccessible(page, 'the usage page');
    await screenshots(page, 'usage');
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });
});
