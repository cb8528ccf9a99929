import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { freePort, waitForPort } from '../../src/stack/ports';
import { type TemporalDevServer, startTemporalDevServer } from '../../src/stack/temporal-server';
import { ensureTool } from '../../src/stack/tools';
import { login } from '../support/auth';
import { SCREENSHOTS, launchChromium, openPage, signIn } from '../support/browser';
import { quietLog, testEnv } from '../support/env';
import { team } from '../support/team';
import { v0ok } from '../support/v0';

// The Temporal UI, as `npm run dev` starts it (--ui-codec-endpoint at the API's /codec), in a
// real Chromium: a person signed in to the portal reads a job's input decoded on its run's page;
// in a browser without the portal's session the same page shows it encoded.

describe('the Temporal UI with the codec endpoint', function () {
  this.timeout(180_000);
  let temporal: TemporalDevServer;
  let api: ServiceProcess;
  let browser: Browser;
  let uiUrl: string;

  before(async function () {
    this.timeout(300_000);
    const apiPort = await freePort();
    const uiPort = await freePort();
    temporal = await startTemporalDevServer({
      binary: await ensureTool('temporal', testEnv().config.toolsDir),
      port: await freePort(),
      uiPort,
      uiCodecEndpoint: `http://127.0.0.1:${apiPort}/codec`,
      headless: false,
      logFile: path.join(testEnv().dataDir, 'logs', 'temporal-ui.log'),
    });
    uiUrl = temporal.uiUrl!;
    await waitForPort('127.0.0.1', uiPort, 30_000);
    // An API and a worker of their own on this Temporal, the suite's database and keys.
    api = await startServiceProcess({
      config: testEnv().configWith({
        TEMPORAL_ADDRESS: temporal.address,
        PORT: String(apiPort),
        TEMPORAL_UI_URL: uiUrl,
        TEMPORAL_TASK_QUEUE: 'ui-codec',
      }),
      log: quietLog,
      api: true,
      worker: true,
    });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await api?.stop();
    await temporal?.stop();
  });

  /** A context whose UI pages send credentials to the codec endpoint (the UI's own codec settings). */
  async function uiContext(signedInAs?: string) {
    const opened = await openPage(browser);
    await opened.context.addInitScript(
      `if (location.origin === ${JSON.stringify(uiUrl)}) {
        localStorage.setItem('endpoint', ${JSON.stringify(JSON.stringify(`${api.url}/codec`))});
        localStorage.setItem('includeCredentials', 'true');
        localStorage.setItem('overrideRemoteCodecConfiguration', 'true');
      }`,
    );
    if (signedInAs) await signIn(opened.page, api.url!, signedInAs);
    return opened;
  }

  it("shows a signed-in admin the job's input decoded, and a member or a browser without the session only ciphertext", async () => {
    // An admin, not the owner, of a team workspace: decoding needs that role, and a member's is short of it.
    const { ws, owner, admin, member } = await team();
    const marker = `uisecret${randomBytes(5).toString('hex')}`;
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      headers: { 'X-Compute-Workspace': ws.id },
      baseUrl: api.url,
      body: { type: 'COMMAND', command: `echo ${marker}`, selector: { nobody: 'here' } },
    });
    const runPage = `${uiUrl}/namespaces/default/workflows/${job.id}`;

    const signed = await uiContext(admin.user.email);
    await signed.page.goto(runPage);
    await signed.page.getByText(marker).first().waitFor({ timeout: 30_000 });
    await signed.page.screenshot({ path: path.join(SCREENSHOTS, 'temporal-ui-decoded.png'), fullPage: false });
    const audited = await testEnv()
      .db('audit_log')
      .where({ workspace_id: ws.id, action: 'codec.decode' })
      .select('actor_id', 'target_id', 'details');
    assert.ok(audited.length > 0, 'the read is in the audit log');
    assert.deepEqual(
      new Set(audited.map((e) => JSON.stringify([e.actor_id, e.target_id, e.details.workflows]))),
      new Set([JSON.stringify([admin.user.id, job.id, [job.id]])]),
      'by the admin, of the run its payloads were sealed for',
    );

    for (const [who, email] of [
      ['a member', member.user.email],
      ['a browser without the session', undefined],
    ] as const) {
      const other = await uiContext(email);
      const decodes = other.page.waitForResponse((r) => r.url().startsWith(`${api.url}/codec/decode`), {
        timeout: 30_000,
      });
      await other.page.goto(runPage);
      const answer = (await (await decodes).json()) as { payloads: Array<{ metadata?: Record<string, string> }> };
      // The run's page itself, not a blank one: its ID shows; the codec answered with every payload still sealed.
      await other.page.getByText(job.id).first().waitFor({ timeout: 30_000 });
      assert.ok(
        answer.payloads.length > 0 &&
          answer.payloads.every(
            (p) => Buffer.from(p.metadata?.encoding ?? '', 'base64').toString() === 'binary/encrypted',
          ),
        `${who}: ${JSON.stringify(answer).slice(0, 300)}`,
      );
      await other.page.waitForTimeout(1500);
      assert.equal(await other.page.getByText(marker).count(), 0, `${who}: the input stays sealed`);
      await other.context.close();
    }
    await v0ok('POST', `/jobs/${job.id}:cancel`, {
      token: owner.token,
      headers: { 'X-Compute-Workspace': ws.id },
      baseUrl: api.url,
      status: 200,
    });
    await signed.context.close();
  });

  it('shows a job terminated in the UI as Terminated there, and CANCELLED with the reason in the portal', async () => {
    const owner = await login();
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      baseUrl: api.url,
      body: { type: 'COMMAND', command: 'echo never', selector: { nobody: 'here' } },
    });
    const bin = await ensureTool('temporal', testEnv().config.toolsDir);
    await promisify(execFile)(bin, [
      'workflow',
      'terminate',
      '--workflow-id',
      job.id,
      '--reason',
      'stuck: ops ended it',
      '--address',
      temporal.address,
    ]);
    // The reconciler's sweep, as its timer would run it.
    await api.services!.transitions.repairBehind({ silentForMs: 60_000, closedSince: new Date(Date.now() - 60_000) });
    const signed = await uiContext(owner.user.email);
    await signed.page.goto(`${uiUrl}/namespaces/default/workflows/${job.id}`);
    await signed.page.getByText('Terminated').first().waitFor({ timeout: 30_000 });
    await signed.page.screenshot({ path: path.join(SCREENSHOTS, 'temporal-ui-terminated.png') });
    await signed.page.goto(`${api.url}/jobs/${job.id}`);
    await signed.page.getByRole('status', { name: 'Job state' }).getByText('CANCELLED').waitFor();
    await signed.page.getByText('terminated in Temporal: stuck: ops ended it').waitFor();
    await signed.page.screenshot({ path: path.join(SCREENSHOTS, 'portal-terminated.png') });
    await signed.context.close();
  });
});
