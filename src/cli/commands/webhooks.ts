import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { Webhook } from 'standardwebhooks';
import { CliError } from '../api-client';
import { sessionInActiveWorkspace } from '../active-workspace';
import { type V0Session, callV0, listAllV0 } from '../v0-client';
import { bold, dim, green, paintStderr, printJson, printTable, status } from '../terminal';
import type { CreatedWebhookRecord, DeliveryRecord, WebhookRecord } from '../records';

const EVENT_TYPES = ['job.created', 'job.transitioned', 'job.terminal'];
/** What a forwarded event keeps of the request: enough for the local app to verify it as we did. */
const FORWARDED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'user-agent'];

function eventList(value: string): string[] {
  const events = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const unknown = events.filter((e) => !EVENT_TYPES.includes(e));
  if (unknown.length || !events.length)
    throw new CliError(`--events takes a comma-separated list of ${EVENT_TYPES.join(', ')}; got ${value}`);
  return events;
}

const create = (session: V0Session, body: { url: string; events?: string[]; description?: string }) =>
  callV0<CreatedWebhookRecord>(session, 'POST', '/webhooks', body);
const hookPath = (id: string) => `/webhooks/${encodeURIComponent(id)}`;

/** `compute webhooks …`: the active workspace's webhook endpoints (admin), on /v0 with the login session. */
export function registerWebhooksCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook endpoints of the active workspace: signed job events (admin)');

  webhooks
    .command('create')
    .description('Register an endpoint; prints its signing secret, shown only now')
    .argument('<url>', 'where events are POSTed (http or https)')
    .option('--events <list>', `comma-separated: ${EVENT_TYPES.join(', ')} (default: all)`, eventList)
    .option('--description <text>')
    .option('--json', 'print JSON')
    .action(async (url: string, opts: { events?: string[]; description?: string; json?: boolean }) => {
      const hook = await create(await sessionInActiveWorkspace(), {
        url,
        events: opts.events,
        description: opts.description,
      });
      if (opts.json) return printJson(hook);
      status(`${green('created')} ${hook.id} → ${hook.url} (${hook.events.join(', ')})`);
      status(dim('the secret is shown only now; verify webhook-signature with it:'));
      process.stdout.write(`${hook.secret}\n`);
    });

  webhooks
    .command('list')
    .description('Every endpoint, newest first, without secrets')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const all = await listAllV0<WebhookRecord>(await sessionInActiveWorkspace(), '/webhooks');
      if (opts.json) return printJson(all);
      printTable(
        ['ID', 'URL', 'EVENTS', 'ENABLED', 'CREATED'],
        all.map((h) => [
          h.id,
          h.url,
          h.events.join(','),
          h.enabled ? 'yes' : `no (${h.disabledReason ?? 'disabled'})`,
          h.createdAt,
        ]),
      );
    });

  webhooks
    .command('delete')
    .description('Delete an endpoint: nothing more is sent to it')
    .argument('<id>')
    .action(async (id: string) => {
      await callV0(await sessionInActiveWorkspace(), 'DELETE', hookPath(id));
      status(`deleted ${id}`);
    });

  webhooks
    .command('rotate')
    .description('A new signing secret; the previous one still signs for 24 h')
    .argument('<id>')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean }) => {
      const out = await callV0<{ id: string; secret: string; previousSecretExpiresAt: string }>(
        await sessionInActiveWorkspace(),
        'POST',
        `${hookPath(id)}:rotate-secret`,
      );
      if (opts.json) return printJson(out);
      status(`rotated ${id}; the previous secret signs too until ${out.previousSecretExpiresAt}`);
      process.stdout.write(`${out.secret}\n`);
    });

  webhooks
    .command('deliveries')
    .description('The attempts to send events to an endpoint, newest first')
    .argument('<id>')
    .option('--event <eventId>', 'only this event')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'at most this many (default 50)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1 || n > 200)
        throw new CliError(`--limit takes a whole number from 1 to 200; got ${v}`);
      return n;
    })
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { event?: string; status?: string; limit?: number; json?: boolean }) => {
      if (opts.status && !['pending', 'succeeded', 'failed'].includes(opts.status))
        throw new CliError(`--status takes pending, succeeded or failed; got ${opts.status}`);
      const query = new URLSearchParams({
        pageSize: String(opts.limit ?? 50),
        ...(opts.event && { eventId: opts.event }),
        ...(opts.status && { status: opts.status }),
      });
      const page = await callV0<{ items: DeliveryRecord[] }>(
        await sessionInActiveWorkspace(),
        'GET',
        `${hookPath(id)}/deliveries?${query}`,
      );
      if (opts.json) return printJson(page.items);
      printTable(
        ['ID', 'EVENT', 'TYPE', 'ATTEMPT', 'STATUS', 'ANSWER', 'MS', 'AT', 'NEXT ATTEMPT'],
        page.items.map((d) => [
          d.id,
          d.eventId,
          d.eventType,
          `${d.attempt}${d.redelivery ? ' (re)' : ''}`,
          d.status,
          d.responseStatus === null ? (d.error ?? '-').slice(0, 40) : String(d.responseStatus),
          String(d.durationMs),
          d.createdAt,
          d.nextAttemptAt ?? '-',
        ]),
      );
    });

  webhooks
    .command('redeliver')
    .description("Send a delivery's event again now (one attempt, logged)")
    .argument('<id>', 'the endpoint')
    .argument('<deliveryId>', 'a delivery from `compute webhooks deliveries`')
    .action(async (id: string, deliveryId: string) => {
      const out = await callV0<{ eventId: string }>(
        await sessionInActiveWorkspace(),
        'POST',
        `${hookPath(id)}/deliveries/${encodeURIComponent(deliveryId)}:redeliver`,
      );
      status(`redelivering ${out.eventId}; see \`compute webhooks deliveries ${id} --event ${out.eventId}\``);
    });

  webhooks
    .command('listen')
    .description(
      'For local development: receive events here, print them, forward them; the endpoint is removed on exit',
    )
    .option('--forward-to <url>', 'POST each event on to this URL, with its headers; its answer is the delivery’s')
    .option('--events <list>', `comma-separated: ${EVENT_TYPES.join(', ')} (default: all)`, eventList)
    .option('--port <port>', 'listen on this port of 127.0.0.1 (default: any free one)', (v) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new CliError(`--port takes a port number; got ${v}`);
      return n;
    })
    .option(
      '--public-url <url>',
      'register this URL instead of http://127.0.0.1:<port>/ (when the API reaches this machine another way)',
    )
    .option('--json', 'print each event as one line of JSON on stdout')
    .action(
      async (opts: { forwardTo?: string; events?: string[]; port?: number; publicUrl?: string; json?: boolean }) => {
        await listen(await sessionInActiveWorkspace(), opts);
      },
    );
}

async function listen(
  session: V0Session,
  opts: { forwardTo?: string; events?: string[]; port?: number; publicUrl?: string; json?: boolean },
): Promise<void> {
  if (opts.forwardTo && !/^https?:\/\//.test(opts.forwardTo))
    throw new CliError(`--forward-to takes an http(s) URL; got ${opts.forwardTo}`);
  // Known once the endpoint is made, which needs the port first.
  const verifier: { current?: Webhook } = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      void receive(req, body).then(
        (code) => res.writeHead(code).end(),
        () => res.writeHead(500).end(),
      );
    });
  });

  async function receive(req: http.IncomingMessage, body: string): Promise<number> {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([, v]) => typeof v === 'string')) as Record<
      string,
      string
    >;
    let event: { id: string; type: string; data: { job: { id: string; state: string }; from?: string; to?: string } };
    try {
      event = verifier.current!.verify(body, headers) as typeof event;
    } catch (err) {
      status(paintStderr(`refused a request whose signature does not verify: ${(err as Error).message}`));
      return 400;
    }
    if (opts.json) process.stdout.write(`${JSON.stringify(event)}\n`);
    else {
      const change = event.data.from ? `${event.data.from} → ${event.data.to}` : event.data.job.state;
      process.stdout.write(
        `${dim(new Date().toISOString())} ${bold(event.type.padEnd(16))} ${event.data.job.id} ${change} ${dim(event.id)}\n`,
      );
    }
    if (!opts.forwardTo) return 200;
    const passed = Object.fromEntries(FORWARDED_HEADERS.flatMap((h) => (headers[h] ? [[h, headers[h]]] : [])));
    const forwarded = await fetch(opts.forwardTo, {
      method: 'POST',
      headers: passed,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(14_000),
    }).then(
      (r) => r.status,
      (err: Error) => {
        status(paintStderr(`  forward to ${opts.forwardTo} failed: ${err.message}`));
        return 502;
      },
    );
    status(dim(`  → ${opts.forwardTo} ${forwarded}`));
    return forwarded;
  }

  await new Promise<void>((resolve, reject) =>
    server.once('error', reject).listen(opts.port ?? 0, '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const url = opts.publicUrl ?? `http://127.0.0.1:${port}/`;
  let hook: CreatedWebhookRecord;
  try {
    hook = await create(session, {
      url,
      events: opts.events,
      description: 'compute webhooks listen (removed on exit)',
    });
  } catch (err) {
    server.close();
    throw err;
  }
  verifier.current = new Webhook(hook.secret);
  status(
    `${green('listening')} on ${url} as ${hook.id}${opts.forwardTo ? `, forwarding to ${opts.forwardTo}` : ''}; Ctrl-C stops and removes the endpoint`,
  );

  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  server.close();
  await callV0(session, 'DELETE', hookPath(hook.id)).then(
    () => status(`removed ${hook.id}`),
    (err: Error) =>
      status(paintStderr(`could not remove ${hook.id}: ${err.message}; \`compute webhooks delete ${hook.id}\``)),
  );
}
