import fs from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { setBilling } from '../../src/billing/subscription';
import { createDb } from '../../src/db/knex';
import { SoakClient } from './client';

// The soak's customer: a user logged in the way a person does (the code comes from the API's log,
// where a development stack writes it), in a personal workspace moved to the billed plan by the
// operator, with a hard cap and a webhook endpoint set through the API.

export interface Tenant {
  client: SoakClient;
  token: string;
  workspaceId: string;
  hardCapUsd: number;
  webhookSecret: string;
}

/** Prepaid credit far above the cap: the cap is what binds. */
const CREDIT_USD = '100';

export async function setUpTenant(o: {
  url: string;
  databaseUrl: string;
  logsDir: string;
  webhookUrl: string;
  hardCapUsd: number;
}): Promise<Tenant> {
  const email = `soak-${Date.now()}@example.test`;
  const session = await login(o.url, o.logsDir, email);
  const client = new SoakClient(o.url, session.token);
  const workspaceId = session.user.workspaceId;
  const db = createDb(o.databaseUrl);
  try {
    await setBilling(db, {
      workspaceId,
      plan: 'payg',
      creditUsd: CREDIT_USD,
      actor: { type: 'system', id: 'operator' },
    });
  } finally {
    await db.destroy();
  }
  const caps = await client.retried('PATCH', '/v0/billing/limits', { hardCapUsd: o.hardCapUsd });
  if (caps.status !== 202) throw new Error(`PATCH /v0/billing/limits -> ${caps.status} ${JSON.stringify(caps.body)}`);
  await until('the hard cap applied by a meter tick', async () => {
    const limits = await client.retried('GET', '/v0/billing/limits');
    return limits.body?.pending === null && Number(limits.body?.hardCapUsd) === o.hardCapUsd;
  });
  const hook = await client.retried('POST', '/v0/webhooks', { url: o.webhookUrl, events: ['job.terminal'] });
  if (hook.status !== 201) throw new Error(`POST /v0/webhooks -> ${hook.status} ${JSON.stringify(hook.body)}`);
  return { client, token: session.token, workspaceId, hardCapUsd: o.hardCapUsd, webhookSecret: hook.body.secret };
}

async function login(url: string, logsDir: string, email: string) {
  const post = async (p: string, body: unknown) => {
    const res = await fetch(`${url}/api${p}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const reply = (await res.json()) as { payload: unknown };
    if (res.status !== 200) throw new Error(`${p} -> ${res.status} ${JSON.stringify(reply)}`);
    return reply.payload;
  };
  await post('/auth/request-otp', { email });
  const code = await until('the login code in the API log', () => loggedCode(logsDir, email));
  return (await post('/auth/verify-otp', { email, code })) as {
    token: string;
    user: { id: string; workspaceId: string };
  };
}

/** The code the API logged for `email` (NODE_ENV development logs it). */
async function loggedCode(logsDir: string, email: string): Promise<string | undefined> {
  for (const file of await fs.readdir(logsDir)) {
    if (!file.startsWith('api-')) continue;
    const text = await fs.readFile(path.join(logsDir, file), 'utf8');
    for (const line of text.split('\n')) {
      if (!line.includes(email) || !line.includes('"code"')) continue;
      try {
        const entry = JSON.parse(line) as { email?: string; code?: string };
        if (entry.email === email && entry.code) return entry.code;
      } catch {
        // not a JSON line
      }
    }
  }
  return undefined;
}

async function until<T>(what: string, get: () => Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}
