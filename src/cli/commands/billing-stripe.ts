import { spawn, spawnSync } from 'node:child_process';
import type { Command } from 'commander';
import type StripeClass from 'stripe';
import { loadCliConfig, loadStripeWebhookSecret } from '../../config/cli';
import { CliError, callApi, reach } from '../api-client';
import { readJson, writePrivateJson } from '../config-files';
import { resolveTarget, targetOptions } from '../credentials';
import { dim, printJson, status } from '../terminal';

// `compute billing checkout <plan>` opens a Stripe Checkout for the workspace (admin) and prints
// its URL; `compute billing simulate-event <type>` signs a Stripe event as Stripe would (with
// STRIPE_WEBHOOK_SECRET, or `npm run dev`'s fixed one) and posts it, so a developer can watch the
// plan change without Stripe. The last checkout opened is kept for the simulated event.

const LAST_CHECKOUT = 'last-checkout.json';
const SIMULATED = ['checkout.session.completed', 'checkout.session.expired'] as const;

/** Opens the URL on a desktop that has xdg-open; elsewhere printing it is all. */
function openInBrowser(url: string): boolean {
  if (!loadCliConfig().desktop) return false;
  if (spawnSync('sh', ['-c', 'command -v xdg-open'], { stdio: 'ignore' }).status !== 0) return false;
  spawn('xdg-open', [url], { detached: true, stdio: 'ignore' }).unref();
  return true;
}

export function registerStripeCommands(billing: Command): void {
  targetOptions(billing.command('checkout <plan>'))
    .description(
      'Open a Stripe Checkout to move the workspace to <plan> (admin); the plan changes when Stripe confirms',
    )
    .option('--success-url <url>', 'where Stripe sends you after paying', 'http://127.0.0.1:3000/api/docs')
    .option('--cancel-url <url>', 'where Stripe sends you if you give up', 'http://127.0.0.1:3000/api/docs')
    .option('--json', 'print JSON')
    .action(
      async (
        plan: string,
        opts: { api?: string; key?: string; successUrl: string; cancelUrl: string; json?: boolean },
      ) => {
        const target = await resolveTarget(opts);
        const out = await callApi<{ checkoutUrl: string; sessionId: string }>(
          target,
          '/compute/billing/checkout/create',
          { plan, successUrl: opts.successUrl, cancelUrl: opts.cancelUrl },
        );
        await writePrivateJson(loadCliConfig().configDir, LAST_CHECKOUT, { ...out, plan, apiUrl: target.apiUrl });
        if (opts.json) return void printJson(out);
        process.stdout.write(`${out.checkoutUrl}\n`);
        status(dim(`session ${out.sessionId}; the subscription is pending until Stripe says the checkout completed`));
        if (openInBrowser(out.checkoutUrl)) status(dim('opened in your browser'));
      },
    );

  targetOptions(billing.command('simulate-event <type>'))
    .description(
      `Sign and send a Stripe event for the last checkout opened (${SIMULATED.join(', ')}): development and tests`,
    )
    .option('--session <id>', 'the checkout session (default: the last one `compute billing checkout` opened)')
    .option('--secret <whsec>', 'signing secret (default: STRIPE_WEBHOOK_SECRET, else the `npm run dev` one)')
    .action(async (type: string, opts: { api?: string; key?: string; session?: string; secret?: string }) => {
      if (!(SIMULATED as readonly string[]).includes(type)) throw new CliError(`type: one of ${SIMULATED.join(', ')}`);
      const last = await readJson<{ sessionId: string; apiUrl: string }>(loadCliConfig().configDir, LAST_CHECKOUT);
      const sessionId = opts.session ?? last?.sessionId;
      if (!sessionId)
        throw new CliError('no checkout to complete: run `compute billing checkout <plan>` first, or pass --session');
      // Loaded here: Stripe's library and the API's route module are heavy for every other command.
      const Stripe = require('stripe') as typeof StripeClass;
      const { DEV_STRIPE_WEBHOOK_SECRET } = require('../../config/server') as typeof import('../../config/server');
      const { STRIPE_EVENTS_PATH } =
        require('../../http/surface-a/stripe-events-route') as typeof import('../../http/surface-a/stripe-events-route');
      const secret = opts.secret ?? loadStripeWebhookSecret() ?? DEV_STRIPE_WEBHOOK_SECRET;
      const id = `evt_simulated_${Date.now().toString(36)}`;
      const payload = JSON.stringify({
        id,
        object: 'event',
        type,
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        data: { object: { id: sessionId, object: 'checkout.session' } },
      });
      const header = Stripe.webhooks.generateTestHeaderString({ payload, secret });
      const apiUrl = opts.api ?? last?.apiUrl ?? (await resolveTarget(opts)).apiUrl;
      const res = await reach(apiUrl, STRIPE_EVENTS_PATH, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Stripe-Signature': header },
        body: payload,
      });
      const reply = (await res.json().catch(() => null)) as { payload?: { outcome: string }; message?: string } | null;
      if (!res.ok) throw new CliError(`refused (${res.status}): ${reply?.message ?? 'no answer'}`);
      process.stdout.write(`${id} ${reply?.payload?.outcome}\n`);
    });
}
