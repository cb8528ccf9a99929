import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { AxeResults } from 'axe-core';
import { type Browser, type BrowserContext, type Page, chromium } from 'playwright-core';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../../src/stack/debian-packages';
import { waitFor } from './agents';
import { testEnv } from './env';

// The portal's tests drive Debian's Chromium (pinned, installed by the project's own tool script
// like docker-compose) through playwright-core: a real browser, with the real page's content
// security policy in force.

const ROOT = path.resolve(__dirname, '../..');
/**
 * Where the test run saves the pages' pictures: out of the tree, so a run leaves it clean;
 * `npm run screenshots` saves them to docs/screenshots, which docs/guides/portal.md links.
 */
export const SCREENSHOTS = path.resolve(ROOT, process.env.SCREENSHOTS_DIR ?? path.join('.data', 'screenshots'));
export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

export async function launchChromium(): Promise<Browser> {
  await ensureDebianPackage('chromium', DEBIAN_PACKAGE_VERSIONS.chromium, (msg) =>
    process.stderr.write(`    [apt] ${msg}\n`),
  );
  // Chromium's sandbox refuses to run as root, which the test machines are.
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: process.getuid?.() === 0 ? ['--no-sandbox'] : [],
  });
}

/**
 * A page in a context of its own (its own cookies), whose console errors and failed scripts are
 * kept: a violation of the content security policy shows there.
 */
export async function openPage(
  browser: Browser,
  viewport = DESKTOP,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (err) => errors.push(err.message));
  return { context, page, errors };
}

/** Errors the page logged other than the API's own refusals (a 4xx the page shows as a problem). */
export const unexpectedErrors = (errors: string[]) => errors.filter((e) => !/status of 4\d\d/.test(e));

/** The whole login through the page: the address, the code from the test mailbox, the session cookie. */
export async function signIn(page: Page, baseUrl: string, email: string, start = `${baseUrl}/login`): Promise<void> {
  if (page.url() !== start) await page.goto(start);
  await page.getByLabel('E-mail').fill(email);
  const mailed = testEnv().mailbox.count(email);
  await page.getByRole('button', { name: 'Send code' }).click();
  await waitFor(`a login code mailed to ${email}`, () => testEnv().mailbox.count(email) > mailed);
  await page.getByLabel('Code').fill(testEnv().mailbox.codeFor(email));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

export interface Violation {
  id: string;
  impact: string;
  help: string;
  nodes: string[];
}

/**
 * axe-core run in the page as it is now: its serious and critical violations. The script goes in
 * through the DevTools protocol, which the page's policy (no inline script) does not govern.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  const axe = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  await page.evaluate(`${axe}\n;undefined`);
  const results = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as AxeResults;
  assert.ok(
    results.passes.length > 0 || results.violations.length > 0 || results.incomplete.length > 0,
    'axe checked the page',
  );
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact!, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
}

/** Fails with every serious or critical violation of the page, named. */
export async function assertAccessible(page: Page, what: string): Promise<void> {
  const found = await seriousViolations(page);
  assert.deepEqual(found, [], `${what}: ${JSON.stringify(found, null, 2)}`);
}

/** The page at desktop and phone width, saved as `<name>-desktop.png` and `<name>-phone.png`. */
export async function screenshots(
  page: Page,
  name: string,
  ready: () => Promise<void> = async () => undefined,
): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  for (const [size, viewport] of [
    ['desktop', DESKTOP],
    ['phone', PHONE],
  ] as const) {
    await page.setViewportSize(viewport);
    await ready();
    await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${size}.png`), animations: 'disabled' });
  }
  await page.setViewportSize(DESKTOP);
}
