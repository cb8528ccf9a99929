// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { assertAccessible, openPage, screenshots, signIn, unexpectedErrors } from '../support/browser';
import { login, newEmail } from '../support/auth';
import { portalApi, portalStack } from '../support/portal';
import { v0ok } from '../support/v0';

// The portal served at `/`: its files and headers, login and sign-out by cookie, an expired
// session sent back to login with the page it asked for, and the jobs list with its filters,
// paging, workspace switcher and live updates, in a real Chromium.

const csp = (value: string | null) =>
  Object.fromEntries(
    (value ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([k, ...v]) => [k, v.join(' ')]),
  );

/** Jobs no agent takes (no agent has the label), queued in the session's workspace or `workspace`. */
async function queuedJobs(
  token: string,
  n: number,
  labels: Record<string, string>,
  workspace?: string,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const made = await v0ok('POST', '/jobs', {
      token,
      headers: workspace ? { 'X-Compute-Workspace': workspace } : {},
      body: { type: 'COMMAND', command: `echo ${i}`, labels, selector: { nobody: 'here' } },
    });
    ids.push(made.id);
  }
  return ids;
}

describe('the portal', function () {
  this.timeout(120_000);
  const stack = portalStack();

  it('is served at / with a strict policy, long-cached hashed assets, and loads with no error', async () => {
    const { url, build } = stack();
    for (const path of ['/', '/login', '/jobs', '/jobs/job_anything']) {
      const res = await fetch(`${url}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type')!, /^text\/html/);
      assert.equal(res.headers.get('cache-control'), 'no-cache', path);
      const policy = csp(res.headers.get('content-security-policy'));
      assert.deepEqual(
        [
          policy['default-src'],
          policy['base-uri'],
          policy['form-action'],
          policy['frame-ancestors'],
          policy['object-src'],
        ],
        ["'self'", "'none'", "'self'", "'none'", "'none'"],
        path,
      );
      assert.ok(
        !policy['script-src'] && !policy['style-src'],
        'scripts and styles fall under default-src: no inline code',
      );
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
      const html = await res.text();
      assert.doesNotMatch(html, /<script>|<style|style=/, 'no inline script or style');
      assert.match(html, /<meta name="compute-temporal-ui" content="http:\/\/temporal-ui\.test:8233">/);
    }
    const html = await (await fetch(url)).text();
    const assets = [...html.matchAll(/\/assets\/([\w.-]+)/g)].map((m) => m[1]);
    assert.equal(assets.length, 3, 'icon, stylesheet, script');
    for (const name of assets) {
      const res = await fetch(`${url}/assets/${name}`);
      assert.equal(res.status, 200, name);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    }
    assert.equal((await fetch(`${url}/assets/main-0000.js`)).status, 404);
    assert.equal((await fetch(`${url}/nothing-here`)).status, 404, 'only the portal’s own paths answer the page');
    assert.equal((await fetch(`${url}/api/openapi.json`)).status, 200, 'the API is where it was');

    const { page, errors } = await openPage(stack().browser);
    const started = Date.now();
    await page.goto(url);
    await page.getByRole('button', { name: 'Send code' }).waitFor();
    const shown = Date.now() - started;
    const timing = (await page.evaluate('JSON.stringify(performance.getEntriesByType("navigation")[0])')) as string;
    const nav = JSON.parse(timing) as { domContentLoadedEventEnd: number; loadEventEnd: number };
    process.stderr.write(
      `      portal: built assets ${(build.totalBytes / 1024).toFixed(1)} KiB (${build.files.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(1)} KiB`).join(', ')}); ` +
        `first page: DOMContentLoaded ${nav.domContentLoadedEventEnd.toFixed(0)} ms, load ${nav.loadEventEnd.toFixed(0)} ms, login form shown ${shown} ms after navigation began\n`,
    );
    assert.match(page.url(), /\/login\?next=%2Fjobs$/, `/ goes to the jobs, which need a login first: ${page.url()}`);
    assert.deepEqual(unexpectedErrors(errors), [], 'no policy violation, no script error');
  });

  it('logs in with the mailed code into an HttpOnly cookie, keeps no token where scripts reach, and signs out', async () => {
    const { url, browser } = stack();
    const { context, page, errors } = await openPage(browser);
    await page.goto(`${url}/login`);
    await assertAccessible(page, 'the login page');
    const email = newEmail();
    await page.getByLabel('E-mail').fill(email);
    await page.getByRole('button', { name: 'Send code' }).click();
    await page.getByLabel('Code').waitFor();
    await assertAccessible(page, 'the login page asking for the code');
    await screenshots(page, 'login');
    await signIn(page, url, email, page.url());
    assert.match(page.url(), /\/jobs$/);
    await page.getByText(email.toLowerCase()).waitFor();

    const [cookie, ...others] = await context.cookies(url);
    assert.equal(others.length, 0);
    assert.equal(cookie.name, 'compute_session');
    assert.deepEqual([cookie.httpOnly, cookie.sameSite, cookie.path, cookie.secure], [true, 'Strict', '/', false]);
    assert.ok(cookie.expires > Date.now() / 1000, 'it ends with the session');
    const reachable = (await page.evaluate(
      'JSON.stringify([document.cookie, {...localStorage}, {...sessionStorage}])',
    )) as string;
    assert.equal(reachable, '["",{},{}]', 'nothing of the session is readable by the page');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    assert.deepEqual(await context.cookies(url), [], 'the cookie is gone');
    await page.goto(`${url}/jobs?state=QUEUED`);
    await page.waitForURL(/\/login\?next=%2Fjobs%3Fstate%3DQUEUED$/);
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });

  it('sends an expired session back to login, then to the page it asked for; errors show their title and detail', async function () {
    this.timeout(60_000);
    const shortLived = await portalApi({ JWT_TTL_SECONDS: '4' });
    try {
      const { context, page } = await openPage(stack().browser);
      const email = newEmail();
      await signIn(page, shortLived.url!, email);
      const asked = `/jobs/job_00000000000000000000000000`;
      await page.goto(`${shortLived.url}${asked}`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      const shown = await alert.innerText();
      assert.match(shown, /^Not found\s+job not found$/i, `the problem’s title and detail, nothing else: ${shown}`);
      await page.waitForTimeout(4500);
      await page.reload();
      await page.waitForURL(`${shortLived.url}/login?next=${encodeURIComponent(asked)}`);
      await signIn(page, shortLived.url!, email, page.url());
      assert.equal(new URL(page.url()).pathname, asked, 'back where it was going');
      await context.close();
    } finally {
      await shortLived.stop();
    }
  });

  it('lists jobs with state and label filters and paging, switches workspace, and shows new jobs without a reload', async () => {
    const { url, browser } = stack();
    const { context, page, errors } = await openPage(browser);
    const email = newEmail();
    const session = await login(email);
    const blue = await queuedJobs(session.token, 22, { team: 'blue' });
    const [red] = await queuedJobs(session.token, 1, { team: 'red' });
    await v0ok('POST', `/jobs/${blue[0]}:cancel`, { token: session.token, status: 200 });
    await signIn(page, url, email);

    const rows = page.getByRole('region', { name: 'Jobs list' }).locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 20, 'a page of 20');
    assert.match(await rows.first().innerText(), new RegExp(red), 'newest first');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('link', { name: 'First page' }).waitFor();
    await rows.filter({ hasText: blue[0] }).waitFor();
    assert.equal(await rows.count(), 3, 'the rest on page 2');

    await page.getByLabel('State').selectOption('QUEUED');
    await page.getByLabel('Label').fill('team=blue');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/state=QUEUED&label=team%3Dblue/);
    await rows.filter({ hasText: blue[21] }).waitFor();
    await page.getByRole('link', { name: 'Next page' }).click();
    await rows.filter({ hasText: blue[1] }).waitFor();
    assert.equal(await rows.count(), 1, '21 queued blue jobs: 20, then 1 (the cancelled one is left out)');
    assert.equal(await rows.filter({ hasText: red }).count(), 0);
    await assertAccessible(page, 'the jobs list');

    await page.goto(`${url}/jobs`);
    await rows.first().waitFor();
    const [fresh] = await queuedJobs(session.token, 1, { team: 'green' });
    await rows.filter({ hasText: fresh }).waitFor({ timeout: 10_000 });
    await screenshots(page, 'jobs', () => rows.first().waitFor());

    await page.getByLabel('Label').fill('nolabel');
    await page.getByRole('button', { name: 'Filter' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    assert.match(
      await alert.innerText(),
      /^The request is invalid\s+The request is invalid\s+label\S*: expected key=value$/,
      'title, detail and the field',
    );

    const other = await v0ok('POST', '/workspaces', { token: session.token, body: { name: 'second' } });
    const [elsewhere] = await queuedJobs(session.token, 1, { team: 'blue' }, other.id);
    await page.goto(`${url}/jobs`);
    const asked = page.waitForRequest(
      (r) => r.url().includes('/v0/jobs?') && r.headers()['x-compute-workspace'] === other.id,
    );
    await page.getByLabel('Workspace').selectOption({ label: 'second (owner)' });
    await asked;
    await rows.filter({ hasText: elsewhere }).waitFor();
    assert.equal(await rows.count(), 1, 'only the second workspace’s job');
    assert.match(page.url(), new RegExp(`workspace=${other.id}`));
    assert.deepEqual(unexpectedErrors(errors), []);
    await context.close();
  });
});
