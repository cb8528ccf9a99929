import type { Browser } from 'playwright-core';
import { type PortalBuild, buildPortal } from '../../scripts/build-portal';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { launchChromium } from './browser';
import { quietLog, testEnv } from './env';

/** The Temporal UI address the portal's API is given: the job page links runs there. */
export const TEMPORAL_UI = 'http://temporal-ui.test:8233';

export interface PortalStack {
  /** An API of its own on the suite's stack (the suite's worker runs the jobs), serving the portal. */
  api: ServiceProcess;
  url: string;
  browser: Browser;
  build: PortalBuild;
}

/** An API serving this portal with `env` on the suite's stack. */
export const portalApi = (env: Record<string, string> = {}) =>
  startServiceProcess({
    config: testEnv().configWith({ TEMPORAL_UI_URL: TEMPORAL_UI, ...env }),
    log: quietLog,
    api: true,
    worker: false,
  });

/**
 * For a describe block: the portal built from today's sources (as `npm test` does first, so a
 * file run alone tests them too), an API serving it, and Chromium; all stopped after the block.
 */
export function portalStack(): () => PortalStack {
  let stack: PortalStack | undefined;
  before(async function () {
    this.timeout(300_000);
    const build = await buildPortal();
    const api = await portalApi();
    stack = { api, url: api.url!, browser: await launchChromium(), build };
  });
  after(async () => {
    await stack?.browser.close();
    await stack?.api.stop();
  });
  return () => {
    if (!stack) throw new Error('the portal stack is not started');
    return stack;
  };
}
