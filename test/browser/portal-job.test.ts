import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Page, Request } from 'playwright-core';
import { agentPool, waitFor } from '../support/agents';
import { presignDownload } from '../support/artifacts';
import { PHONE, assertAccessible, openPage, screenshots, signIn, unexpectedErrors } from '../support/browser';
import { cliUser, startCompute } from '../support/cli';
import { testEnv } from '../support/env';
import { newRegion, onManagedPlan } from '../support/managed-pool';
import { TEMPORAL_UI, portalStack } from '../support/portal';
import { startTcpProxy } from '../support/tcp-proxy';
import { v0, v0ok } from '../support/v0';

// A job's page in a real Chromium: a job submitted with `compute run` shows its lines live over
// SSE, a cut connection resumes with Last-Event-ID and every line shows once, stdout and stderr
// apart, colours as styles; cancel and retry from the page; the link to its Temporal run.

interface Shown {
  seq: number;
  stream: string;
  text: string;
}

/** The log region's lines as the page shows them (the stderr tag aside). */
const shownLines = async (page: Page): Promise<Shown[]> =>
  JSON.parse(
    (await page.evaluate(`JSON.stringify([...document.querySelectorAll('[role=log] .line')].map((e) => ({
      seq: Number(e.dataset.seq),
      stream: e.dataset.stream,
      text: [...e.childNodes].filter((n) => !(n.classList && n.classList.contains('tag'))).map((n) => n.textContent).join(''),
    })))`)) as string,
  );

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const ESC = String.fromCharCode(27);
const stripSgr = (s: string) => s.replace(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');

describe("the portal's job page", function () {
  this.timeout(180_000);
  const stack = portalStack();
  const agents = agentPool();

  /** A person logged in on the CLI and in the page (at `baseUrl`), with an agent of their workspace running. */
  async function person(baseUrl = stack().url) {
    const cli = await cliUser();
    const key = (await cli.ok('keys', 'create', '--name', 'portal-agent', '--kind', 'agent')).trim();
    await agents({ key, concurrency: 2 });
    const { context, page, errors } = await openPage(stack().browser);
    await signIn(page, baseUrl, cli.session.email);
    /** `compute run` of a manifest in the background; its job's ID once the API lists it. */
    const run = async (name: string, command: string) => {
      const file = path.join(testEnv().dataDir, `portal-${name}-${Date.now()}.json`);
      fs.writeFileSync(file, JSON.stringify({ type: 'COMMAND', command, labels: { case: name } }));
      const running = startCompute(['run', file], { env: cli.env });
      const id = await waitFor(
        `the ${name} job`,
        async () =>
          (await v0ok('GET', `/jobs?label=case=${name}`, { token: cli.session.token, status: 200 })).items[0]?.id as
            string | undefined,
      );
      return { running, id };
    };
    return { cli, context, page, errors, run };
  }

  const jobState = (page: Page) => page.getByRole('status', { name: 'Job state' });
  const log = (page: Page) => page.getByRole('log', { name: 'Log' });

  it('shows the lines live, resumes a cut stream with Last-Event-ID with every line once, stdout and stderr apart, colours as styles', async () => {
    // The page reaches the API through a TCP relay whose connections the test can drop.
    const relay = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(stack().url).port) });
    const url = `http://${relay.address}`;
    const { cli, context, page, errors, run } = await person(url);
    const streams: Request[] = [];
    page.on('request', (r) => {
      if (r.url().includes('/logs?follow=true')) streams.push(r);
    });
    const { running, id } = await run(
      'live',
      "for i in $(seq 1 16); do printf '\\033[32mout %02d\\033[0m\\n' $i; printf 'warn %02d\\n' $i >&2; sleep 0.4; done",
    );
    await page.goto(`${url}/jobs/${id}`);
    await log(page).getByText('out 03').waitFor({ timeout: 30_000 });
    assert.equal(running.exitCode(), undefined, 'the job is still writing');
    await assertAccessible(page, 'the job page, live');

    // The connection dropped mid-stream, and the browser offline for a while as the job goes on.
    await context.setOffline(true);
    relay.cut();
    await page.getByText('Connection lost').waitFor();
    const cutAt = (await shownLines(page)).length;
    await page.waitForTimeout(1500);
    await context.setOffline(false);
    await page.getByText('The job is over').waitFor({ timeout: 30_000 });
    await jobState(page).getByText('SUCCEEDED').waitFor();
    assert.equal((await running.finished(30_000)).code, 0, 'compute run ends with the job');

    const stored = (await v0ok('GET', `/jobs/${id}/logs?afterSeq=0`, { token: cli.session.token, status: 200 }))
      .lines as Array<{ seq: number; stream: string; line: string }>;
    assert.equal(stored.length, 32);
    const shown = await shownLines(page);
    assert.deepEqual(
      shown,
      stored.map((l) => ({ seq: l.seq, stream: l.stream, text: stripSgr(l.line) })),
      'every stored line once, in order',
    );
    assert.ok(cutAt > 0 && cutAt < 32, `the cut came mid-stream (after ${cutAt} lines)`);
    const resumedFrom = streams.slice(1).map((r) => Number(r.headers()['last-event-id']));
    assert.ok(
      resumedFrom.length >= 1 && resumedFrom.every((n) => n > 0),
      `reconnected with Last-Event-ID: ${resumedFrom}`,
    );
    assert.equal(streams[0].headers()['last-event-id'], undefined, 'the first connection asks from the start');

    assert.deepEqual(
      shown.map((l) => `${l.stream} ${l.text}`).slice(0, 2),
      ['stdout out 01', 'stderr warn 01'],
      'stdout and stderr told apart',
    );
    const look = JSON.parse(
      (await page.evaluate(`JSON.stringify([
        getComputedStyle(document.querySelector('[role=log] .line[data-stream="stdout"] span')).color,
        document.querySelector('[role=log] .line[data-stream="stderr"] .tag').textContent,
        document.querySelector('[role=log]').textContent.includes(String.fromCharCode(27)) || document.querySelector('[role=log]').textContent.includes('[32m'),
      ])`)) as string,
    ) as [string, string, boolean];
    assert.deepEqual(look, ['rgb(126, 231, 135)', 'err', false], 'green as a style, stderr tagged, no escape shown');

    const temporal = page.getByRole('link', { name: 'Open in Temporal UI' });
    assert.equal(await temporal.getAttribute('href'), `${TEMPORAL_UI}/namespaces/default/workflows/${id}`);
    assert.match((await temporal.getAttribute('rel'))!, /noopener/);
    assert.equal(
      await page.getByRole('button', { name: 'Cancel job' }).isDisabled(),
      true,
      'nothing to cancel once over',
    );
    await assertAccessible(page, 'the job page, over');
    await screenshots(page, 'job');
    assert.deepEqual(
      unexpectedErrors(errors).filter((e) => !/ERR_INTERNET_DISCONNECTED|ERR_INCOMPLETE_CHUNKED_ENCODING/.test(e)),
      [],
    );
    await context.close();
    await relay.close();
  });

  it('says why a managed job no agent can take waits', async () => {
    const { cli, context, page, errors } = await person();
    const region = newRegion();
    // A region no agent serves.
    await onManagedPlan(cli.session.workspaceId, region);
    const made = await v0ok('POST', '/jobs', {
      token: cli.session.token,
      body: { type: 'COMMAND', command: 'true', pool: 'managed', resources: { cpu: 64 } },
    });
    await page.goto(`${stack().url}/jobs/${made.id}`);
    await jobState(page).getByText('QUEUED').waitFor({ timeout: 30_000 });
    const why = page.locator('.waiting-reason');
    await why.waitFor({ timeout: 30_000 });
    assert.equal(await why.innerText(), `no agent of the managed pool in region ${region} is online`);
    assert.deepEqual(unexpectedErrors(errors), []);
    await v0ok('POST', `/jobs/${made.id}:cancel`, { token: cli.session.token, status: 200 });
    await context.close();
  });

  it('cancels a running job from the page, and retries a failed one', async () => {
    const { cli, context, page, errors, run } = await person();
    const { running, id } = await run('cancel', 'echo started; sleep 60');
    await page.goto(`${stack().url}/jobs/${id}`);
    await log(page).getByText('started').waitFor({ timeout: 30_000 });
    await jobState(page).getByText('RUNNING').waitFor();
    // Cancel asks once more, like Revoke and Remove: kept, nothing is sent.
    const cancels: string[] = [];
    page.on('request', (r) => r.url().endsWith(':cancel') && cancels.push(r.url()));
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.getByRole('group', { name: `Cancel job ${id}?` }).waitFor();
    await page.getByRole('button', { name: 'Keep' }).click();
    await page.getByRole('button', { name: 'Cancel job' }).waitFor();
    assert.deepEqual(cancels, [], 'a kept job is not cancelled');
    assert.equal((await v0ok('GET', `/jobs/${id}`, { token: cli.session.token, status: 200 })).state, 'RUNNING');
    await page.getByRole('button', { name: 'Cancel job' }).click();
    await page.getByRole('button', { name: 'Yes, cancel job' }).click();
    await jobState(page).getByText('CANCELLED').waitFor({ timeout: 30_000 });
    assert.equal(cancels.length, 1, 'one cancel, once confirmed');
    assert.equal((await v0ok('GET', `/jobs/${id}`, { token: cli.session.token, status: 200 })).state, 'CANCELLED');
    assert.equal((await running.finished(30_000)).code, 130, 'compute run reports the cancel');

    const failing = await v0('POST', '/jobs', {
      token: cli.session.token,
      body: { type: 'COMMAND', command: 'echo attempt $COMPUTE_ATTEMPT; exit 3' },
    });
    assert.equal(failing.status, 201);
    await page.goto(`${stack().url}/jobs/${failing.body.id}`);
    await jobState(page).getByText('FAILED').waitFor({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Retry job' }).click();
    await log(page).getByText('attempt 2').waitFor({ timeout: 30_000 });
    await jobState(page).getByText('FAILED').waitFor({ timeout: 30_000 });
    const after = await v0ok('GET', `/jobs/${failing.body.id}`, { token: cli.session.token, status: 200 });
    assert.deepEqual([after.state, after.attempt], ['FAILED', 2]);
    assert.deepEqual(
      await log(page).locator('.line').allInnerTexts(),
      ['attempt 1', 'attempt 2'],
      'the whole log once, both attempts',
    );
    const attempts = page.getByRole('region', { name: 'Attempts list' }).locator('tbody tr');
    await attempts.nth(1).waitFor();
    const rows = (await attempts.allInnerTexts()).map((r) => r.split('\t').map((c) => c.trim()));
    assert.deepEqual(
      rows.map((r) => [r[0], r[2]]),
      [
        ['1', 'result, exit 3'],
        ['2', 'result, exit 3'],
      ],
      'both attempts, each with how it ended',
    );
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it('lists each job with what tells it apart; at phone width the list keeps its first columns, the header folds into a menu, and attempts show how they ended', async () => {
    const { cli, context, page, errors } = await person();
    const token = cli.session.token;
    const made = await v0ok('POST', '/jobs', {
      token,
      body: { type: 'COMMAND', command: 'echo first line\necho second line', labels: { team: 'ml', env: 'prod' } },
    });
    const done = await waitFor('the job to succeed', async () => {
      const job = await v0ok('GET', `/jobs/${made.id}`, { token, status: 200 });
      return job.state === 'SUCCEEDED' && job;
    });
    await page.goto(`${stack().url}/jobs`);
    const row = page.getByRole('region', { name: 'Jobs list' }).locator('tbody tr', { hasText: made.id });
    await row.waitFor();
    const headings = page.getByRole('region', { name: 'Jobs list' }).locator('thead th');
    assert.deepEqual(await headings.allInnerTexts(), [
      'Job',
      'State',
      'Command',
      'Labels',
      'Created',
      'Ran',
      'Attempt',
      'Agent',
    ]);
    const cells = (await row.locator('td').allInnerTexts()).map((c) => c.trim());
    assert.deepEqual(
      [cells[0], cells[1], cells[2], cells[6], cells[7]],
      [made.id, 'SUCCEEDED', 'echo first line', '1', done.agentId],
      'its ID, state, first line of its command, attempt and agent',
    );
    assert.equal(await row.locator('td.command').getAttribute('title'), 'echo first line\necho second line');
    assert.deepEqual((await row.locator('.chip').allInnerTexts()).sort(), ['env=prod', 'team=ml']);
    assert.match(cells[4], /^\d+ (s|min) ago$/, 'when it was created, as a person scans it');
    assert.equal(
      await row.locator('time').getAttribute('datetime'),
      made.createdAt,
      'the exact time kept in the element',
    );
    assert.match(cells[5], /^\d+ (ms|s)$/, 'how long it ran');

    await page.setViewportSize(PHONE);
    assert.deepEqual(await headings.locator('visible=true').allInnerTexts(), ['Job', 'State', 'Command']);
    const nav = page.getByRole('navigation', { name: 'Main' });
    const menu = page.getByRole('button', { name: 'Menu' });
    assert.equal(await nav.isVisible(), false, 'the sections fold away');
    const header = (await page.locator('header.top').boundingBox())!;
    assert.ok(header.height < PHONE.height / 10, `the folded header is one line: ${header.height}px`);
    await assertAccessible(page, 'the jobs list at phone width');
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Agents' }).click();
    await page.waitForURL(/\/agents/);
    await page.getByRole('heading', { name: 'Agents' }).waitFor();
    assert.equal(await nav.isVisible(), false, 'the menu folds again on the new page');
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');

    await page.goto(`${stack().url}/jobs/${made.id}`);
    const attempt = page.getByRole('region', { name: 'Attempts list' }).locator('tbody tr').first();
    await attempt.waitFor();
    assert.deepEqual(
      (await attempt.locator('td').locator('visible=true').allInnerTexts()).map((c) => c.trim()),
      ['1', done.agentId, 'result, exit 0'],
      'at phone width an attempt still says how it ended',
    );
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it("downloads a job's artifact through the page, and uploads a file as a new one; both sha256 as stored", async () => {
    const { cli, context, page, errors } = await person();
    const made = await v0ok('POST', '/jobs', {
      token: cli.session.token,
      body: { type: 'COMMAND', command: 'head -c 300000 /dev/urandom > out.bin', artifacts: { paths: ['out.bin'] } },
    });
    await page.goto(`${stack().url}/jobs/${made.id}`);
    await jobState(page).getByText('SUCCEEDED').waitFor({ timeout: 30_000 });
    const button = page.getByRole('button', { name: 'Download out.bin' });
    await button.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const saved = fs.readFileSync((await download.path())!);
    const listed = (await v0ok('GET', `/jobs/${made.id}`, { token: cli.session.token, status: 200 }))
      .artifacts as Array<{ name: string; sha256: string; size: number; id: string }>;
    assert.equal(download.suggestedFilename(), 'out.bin');
    assert.deepEqual([saved.length, sha256(saved)], [300_000, listed[0].sha256], 'the bytes the agent uploaded');

    const notes = Buffer.from(`notes from the portal ${Date.now()}\n`.repeat(500));
    await page.getByLabel('Artifact file').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: notes });
    await page.getByRole('button', { name: 'Upload artifact' }).click();
    await page.getByText(`Uploaded notes.txt`).waitFor();
    await page.getByRole('button', { name: 'Download notes.txt' }).waitFor();
    const after = (await v0ok('GET', `/jobs/${made.id}`, { token: cli.session.token, status: 200 }))
      .artifacts as typeof listed;
    const uploaded = after.find((a) => a.name === 'notes.txt')!;
    assert.deepEqual([uploaded.size, uploaded.sha256], [notes.length, sha256(notes)]);
    const { url: back } = await presignDownload(cli.session.token, made.id, uploaded.id);
    assert.ok(Buffer.from(await (await fetch(back)).arrayBuffer()).equals(notes), 'stored as sent');
    await assertAccessible(page, 'the job page with artifacts');
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });
});
