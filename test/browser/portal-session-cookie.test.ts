// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { login, newEmail } from '../support/auth';
import { openPage, signIn } from '../support/browser';
import { testEnv } from '../support/env';
import { newWorkspace } from '../support/http';
import { portalApi, portalStack } from '../support/portal';
import { v0ok } from '../support/v0';

// The portal's cookie session on both surfaces, and its CSRF defence: a change the cookie
// authenticates needs X-Compute-CSRF, which a cross-site form cannot send. A cross-origin form post
// changes nothing (checked in the database); Authorization and X-API-Key work as they always did.

/** A page on another site (127.0.0.2) whose form posts itself to `action` when opened. */
async function attackerSite(): Promise<{
  url: (action: string, fields: Record<string, string>, enctype?: string) => string;
  close(): Promise<void>;
}> {
  const server = http.createServer((req, res) => {
    const q = new URL(req.url!, 'http://x').searchParams;
    const fields = JSON.parse(q.get('fields')!) as Record<string, string>;
    const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const inputs = Object.entries(fields)
      .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
      .join('');
    res.setHeader('Content-Type', 'text/html');
    res.end(
      `<!doctype html><form method="POST" action="${esc(q.get('action')!)}" enctype="${esc(q.get('enctype')!)}">${inputs}</form><script>document.forms[0].submit()</script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  const base = `http://127.0.0.2:${(server.address() as AddressInfo).port}/`;
  return {
    url: (action, fields, enctype = 'application/x-www-form-urlencoded') =>
      `${base}?${new URLSearchParams({ action, fields: JSON.stringify(fields), enctype })}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const stateOf = async (jobId: string) => (await testEnv().db('jobs').where({ id: jobId }).first()).state as string;

describe("the portal's cookie session and its CSRF defence", function () {
  this.timeout(120_000);
  const stack = portalStack();

  /** A person signed in through the page, a job of theirs that stays queued, and their cookie. */
  async function signedIn() {
    const email = newEmail();
    const bearer = await login(email);
    const job = await v0ok('POST', '/jobs', {
      token: bearer.token,
      body: { type: 'COMMAND', command: 'echo', selector: { nobody: 'here' } },
    });
    const { context, page } = await openPage(stack().browser);
    await signIn(page, stack().url, email);
    const [cookie] = await context.cookies(stack().url);
    return { bearer, job, context, page, cookie: `${cookie.name}=${cookie.value}` };
  }

  it('a cross-origin form post in the browser cancels nothing, on /v0 nor on /api', async () => {
    const { bearer, job, context, page } = await signedIn();
    const site = await attackerSite();
    try {
      const forms: Array<[string, Record<string, string>, string?]> = [
        [`${stack().url}/v0/jobs/${job.id}:cancel`, {}],
        // A JSON body through a text/plain form: `{"job_id":"…","x":"="}`.
        [`${stack().url}/api/compute/jobs/cancel`, { [`{"job_id":"${job.id}","x":"`]: '"}' }, 'text/plain'],
      ];
      for (const [action, fields, enctype] of forms) {
        const answered = page.waitForResponse((r) => r.url() === action);
        await page.goto(site.url(action, fields, enctype));
        const status = (await answered).status();
        assert.ok([400, 401, 403].includes(status), `${action}: refused (${status})`);
      }
    } finally {
      await site.close();
    }
    assert.equal(await stateOf(job.id), 'QUEUED', 'the job is untouched');
    const cancels = await testEnv()
      .db('audit_log')
      .where({ workspace_id: bearer.user.workspaceId, action: 'job.cancel', outcome: 'success' });
    assert.deepEqual(cancels, []);
    await context.close();
  });

  it('the cookie alone reads on both surfaces (the SSE log too), and changes only with X-Compute-CSRF: 1', async () => {
    const { bearer, job, context, cookie } = await signedIn();
    const url = stack().url;
    const asCookie = (path: string, init: RequestInit = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { Cookie: cookie, ...init.headers } });
    assert.equal((await asCookie(`/v0/jobs/${job.id}`)).status, 200);
    const sse = await asCookie(`/api/compute/jobs/${job.id}/logs?follow=false`);
    assert.deepEqual([sse.status, sse.headers.get('content-type')], [200, 'text/event-stream; charset=utf-8']);
    await sse.text();

    const forged = { Origin: 'http://evil.example', 'Content-Type': 'application/json' };
    const refusedB = await asCookie(`/v0/jobs/${job.id}:cancel`, { method: 'POST', headers: forged });
    const refusedA = await asCookie('/api/compute/jobs/cancel', {
      method: 'POST',
      headers: forged,
      body: JSON.stringify({ job_id: job.id }),
    });
    const b = (await refusedB.json()) as { code: string; detail: string };
    const a = (await refusedA.json()) as { code: string };
    assert.deepEqual(
      [refusedB.status, b.code, refusedA.status, a.code],
      [403, 'auth.forbidden', 403, 'auth.forbidden'],
    );
    assert.match(b.detail, /X-Compute-CSRF: 1/);
    assert.equal(await stateOf(job.id), 'QUEUED', 'nothing changed');
    const denied = await testEnv()
      .db('audit_log')
      .where({ workspace_id: bearer.user.workspaceId, outcome: 'denied' })
      .orderBy('at');
    assert.deepEqual(
      denied.map((e) => [e.action, e.details.reason, e.details.origin]),
      [
        ['job.cancel', 'csrf header missing', 'http://evil.example'],
        ['job.cancel', 'csrf header missing', 'http://evil.example'],
      ],
      'each forged change is an audit entry naming its origin',
    );

    const allowed = await asCookie(`/v0/jobs/${job.id}:cancel`, { method: 'POST', headers: { 'X-Compute-CSRF': '1' } });
    assert.equal(allowed.status, 200, 'the same change with the header goes through');
    assert.equal(await stateOf(job.id), 'CANCELLED');

    const signOut = await asCookie('/api/auth/sign-out', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(signOut.status, 403, 'no other site can sign a person out');
    assert.equal(
      bearer.user.workspaceId,
      ((await (await asCookie('/v0/session')).json()) as { workspaceId: string }).workspaceId,
      'still signed in',
    );
    await context.close();
  });

  it('Authorization and X-API-Key are taken as before, whatever cookie comes along', async () => {
    const { job, context, cookie } = await signedIn();
    const other = await login();
    const { key } = await newWorkspace();
    const url = stack().url;
    // A Bearer token with a cookie: the token decides, and needs no CSRF header.
    const listed = await fetch(`${url}/v0/jobs/${job.id}`, {
      headers: { Cookie: cookie, Authorization: `Bearer ${other.token}` },
    });
    assert.equal(listed.status, 404, "the token's user sees none of the cookie user's jobs");
    const made = await fetch(`${url}/v0/workspaces`, {
      method: 'POST',
      headers: { Cookie: cookie, Authorization: `Bearer ${other.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'by-token' }),
    });
    assert.equal(made.status, 201);
    const keyed = await fetch(`${url}/api/compute/jobs/list`, {
      method: 'POST',
      headers: { Cookie: cookie, 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(keyed.status, 200, 'X-API-Key needs no CSRF header either');
    const broken = await fetch(`${url}/v0/jobs`, { headers: { Cookie: 'compute_session=not-a-jwt' } });
    assert.equal(broken.status, 401);
    await context.close();
  });

  it('sets the cookie HttpOnly, SameSite=Strict, Path=/, Secure and __Host- named behind https, with no token in the answer', async () => {
    const email = newEmail();
    const secure = await portalApi({ PUBLIC_URL: 'https://compute.example' });
    try {
      for (const [url, name, secureFlag] of [
        [stack().url, 'compute_session', false],
        [secure.url!, '__Host-compute_session', true],
      ] as const) {
        await fetch(`${url}/api/auth/request-otp`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ email }),
        });
        const body = JSON.stringify({ email, code: testEnv().mailbox.codeFor(email) });
        const withoutHeader = await fetch(`${url}/api/auth/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        assert.equal(withoutHeader.status, 403, 'the header is required here too');
        const res = await fetch(`${url}/api/auth/session`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Compute-CSRF': '1' },
          body,
        });
        assert.equal(res.status, 200);
        const answer = (await res.json()) as { payload: { token?: string } };
        assert.equal(answer.payload.token, undefined, 'the JWT is only in the cookie');
        const set = res.headers.get('set-cookie')!;
        const [pair, ...attributes] = set.split('; ');
        assert.ok(pair.startsWith(`${name}=ey`), set);
        assert.deepEqual(
          attributes.filter((a) => !a.startsWith('Max-Age=')).sort(),
          ['HttpOnly', 'Path=/', 'SameSite=Strict', ...(secureFlag ? ['Secure'] : [])].sort(),
        );
        assert.ok(Number(/Max-Age=(\d+)/.exec(set)![1]) > 3500, 'it lives as long as the session');
        const cleared = await fetch(`${url}/api/auth/sign-out`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'X-Compute-CSRF': '1', Cookie: pair },
          body: '{}',
        });
        assert.equal(cleared.status, 200);
        assert.match(
          cleared.headers.get('set-cookie')!,
          new RegExp(`^${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict`),
        );
      }
    } finally {
      await secure.stop();
    }
  });
});
