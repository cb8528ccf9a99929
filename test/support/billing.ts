import assert from 'node:assert/strict';
import { suiteClient } from './temporal-client';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../../src/auth/api-keys';
import { openDueInvoices } from '../../src/billing/invoices';
import { meterScheduleId } from '../../src/billing/meter-schedule';
import { closePeriods, periodSettingsOf } from '../../src/billing/periods';
import type { PlanId } from '../../src/billing/plans';
import { setBilling } from '../../src/billing/subscription';
import { attemptEndEntries } from '../../src/billing/ledger';
import { inOneTrip } from '../../src/db/one-trip';
import { newId } from '../../src/shared/ids';
import { waitFor } from './agents';
import { login } from './auth';
import { testEnv } from './env';
import { heartbeatInBackground, pollOne, post, resultOf, sleep, submit } from './http';
import { newRegion, registerManaged } from './managed-pool';

// Billed workspaces with managed jobs, and the billing periods driven by hand, for the invoice tests.

export const OPERATOR = { type: 'system', id: 'operator' } as const;
const db = () => testEnv().db;

/** The suite's period settings (BILLING_PERIOD, and the grace its meter tick makes). */
export const periods = () => periodSettingsOf(testEnv().config.billing);

/** Heavy enough that a second costs about a cent on payg, with decimals that make rounding matter. */
export const RESOURCES = { cpu: 3.5, gpu: 16, memoryMb: 3000 };

/**
 * A workspace on `plan` (a fresh user's personal one, or `session`'s), in a region of its own
 * served by a managed agent, with a user key. Prepaid payg gets 100 USD of credit, team and
 * enterprise none (their invoices bill all the usage), unless `creditUsd` says otherwise.
 */
export async function billedWorkspace(
  plan: PlanId = 'payg',
  session?: { token: string; workspaceId: string },
  creditUsd = plan === 'payg' ? '100' : '0',
) {
  const s: { token: string; workspaceId: string } =
    session ?? (await login().then((l) => ({ token: l.token, workspaceId: l.user.workspaceId })));
  const region = newRegion();
  await db()('workspaces').where({ id: s.workspaceId }).update({ default_region: region });
  await setBilling(db(), { workspaceId: s.workspaceId, plan, creditUsd, actor: OPERATOR });
  const { key } = await createApiKey(db(), { workspaceId: s.workspaceId, name: 'billing', kind: 'user' });
  return { ...s, key, region, agent: await registerManaged(undefined, region) };
}
export type Billed = Awaited<ReturnType<typeof billedWorkspace>>;

/** The attempt's end is metered (by the transition that ends it, shortly after the result). */
export const ended = (jobId: string) =>
  waitFor(
    `${jobId}'s end metered`,
    async () => (await db()('usage_ledger').where({ job_id: jobId, meter_window: 'end' }).first()) !== undefined,
  );

/**
 * The agent's result, sent again after a 503 as an agent does: the run's Update can be refused
 * when its workflow task fails on a signal that arrived meanwhile (Temporal's UnhandledCommand).
 */
export async function reportResult(
  agent: { nodeId: string; nodeKey: string },
  held: { job_id: string; leaseId: string },
): Promise<void> {
  for (let tries = 1; ; tries++) {
    const reply = await post('/compute/nodes/result', resultOf(agent, held, 0), agent.nodeKey);
    if (reply.status === 200) return;
    if (reply.status !== 503 || tries === 5)
      throw new Error(`result of ${held.job_id} -> ${reply.status} ${JSON.stringify(reply.body)}`);
    await sleep(1000);
  }
}

/** A managed job taken by the workspace's agent, heartbeating until `finish` reports its result. */
export async function runningJob(w: Billed) {
  const { job_id: jobId } = await submit(w.key, { pool: 'managed', timeoutSeconds: 120, resources: RESOURCES });
  const held = await waitFor('the managed agent takes it', () => pollOne(w.agent, 2));
  assert.equal(held.job_id, jobId);
  const beats = heartbeatInBackground(w.agent, [jobId]);
  return {
    jobId,
    async finish() {
      await beats.stop();
      await reportResult(w.agent, held);
      await ended(jobId);
    },
  };
}

/** A managed job that runs about `ms` and ends; its ID. */
export async function finishedJob(w: Billed, ms = 800): Promise<string> {
  const job = await runningJob(w);
  await sleep(ms);
  await job.finish();
  return job.jobId;
}

/** The workspace's period closed now, its invoice opened at once with `open` (what `admin billing close-period` does). */
export async function closeNow(workspaceId: string, open: boolean) {
  const at = new Date();
  const closed = await closePeriods(db(), { ...periods(), at, workspaceId, force: true });
  if (open) await openDueInvoices(db(), at, { workspaceId, skipGrace: true });
  return { at, ...closed };
}

/** The workspace's invoices, oldest period first. */
export const invoicesOf = (workspaceId: string) =>
  db()('invoices')
    .where({ workspace_id: workspaceId })
    .orderBy('period_start')
    .select('id', 'status', 'period_start', 'period_end', 'closes_at');

/** A Temporal client on the suite's namespace, for `fn`. */
export async function withTemporal<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const { config } = testEnv();
  const connection = await Connection.connect({ address: config.temporal.address! });
  try {
    return await fn(await suiteClient(connection));
  } finally {
    await connection.close();
  }
}

/**
 * `fn` with the suite's meter paused and no tick of it under way: the test drives the ticks. A
 * suite tick beside the test's would lock some attempts, and a tick skips locked attempts (they
 * go to the next window), so the test's window would miss them.
 */
export function withMeterPaused<T>(why: string, fn: (client: Client) => Promise<T>): Promise<T> {
  return withTemporal(async (client) => {
    const meter = client.schedule.getHandle(meterScheduleId(testEnv().config.temporal.taskQueue));
    await meter.pause(why);
    try {
      // The schedule lists the runs it started that still run; a paused one starts no more.
      await waitFor(
        "the suite meter's tick under way to end",
        async () => (await meter.describe()).info.runningActions.length === 0,
        60_000,
      );
      return await fn(client);
    } finally {
      await meter.unpause();
    }
  });
}

/** `n` attempts running on `nodeId` for a minute already, as rows (their runs are not needed to meter them). */
export async function insertRunning(
  workspaceId: string,
  nodeId: string,
  n: number,
  resources: Record<string, number>,
): Promise<string[]> {
  const jobs = Array.from({ length: n }, () => ({
    id: newId('job'),
    workspace_id: workspaceId,
    type: 'COMMAND',
    command: 'true',
    env: '{}',
    labels: '{}',
    selector: '{}',
    resources: JSON.stringify(resources),
    retry: JSON.stringify({ maxAttempts: 1, backoffSeconds: 10 }),
    timeout_seconds: 3600,
    state: 'RUNNING',
    workflow_started: true,
    attempt: 1,
    agent_id: nodeId,
    created_at: new Date(),
    available_at: new Date(),
  }));
  for (let i = 0; i < n; i += 200) await db()('jobs').insert(jobs.slice(i, i + 200));
  const attempts = jobs.map((j) => ({
    lease_id: newId('lease'),
    job_id: j.id,
    attempt: 1,
    agent_id: nodeId,
    assigned_at: db().raw("now() - interval '1 minute'"),
  }));
  for (let i = 0; i < n; i += 200) await db()('job_attempts').insert(attempts.slice(i, i + 200));
  await db()('jobs')
    .whereIn(
      'id',
      jobs.map((j) => j.id),
    )
    .update({ lease_id: db().raw('(SELECT lease_id FROM job_attempts a WHERE a.job_id = jobs.id)') });
  return jobs.map((j) => j.id);
}

/** Ends the attempts through the seam's own ledger write, as a projection of their ends does. */
export async function endAll(jobIds: string[]): Promise<void> {
  const leases = await db()('job_attempts').whereIn('job_id', jobIds).pluck('lease_id');
  for (let i = 0; i < leases.length; i += 100) {
    await db().transaction(async (trx) => {
      const batch = leases.slice(i, i + 100);
      await trx('job_attempts').whereIn('lease_id', batch).update({ ended_at: trx.fn.now(), end_reason: 'cancelled' });
      for (const lease of batch) await inOneTrip(trx, attemptEndEntries(lease, false));
    });
  }
  await db()('jobs').whereIn('id', jobIds).update({ state: 'CANCELLED', finished_at: db().fn.now() });
}

// Workspaces for the gate and cap tests: no managed agent unless a test registers one.
let gated = 0;

/** A user's personal workspace on `plan` with `creditUsd`, a user key, and a region of its own that no agent serves. */
export async function gatedWorkspace(plan: 'hobby' | 'payg' | 'team', creditUsd = '0') {
  const session = await login();
  const workspaceId = session.user.workspaceId;
  const region = `bill-${newRegion()}-${gated++}`;
  await db()('workspaces').where({ id: workspaceId }).update({ default_region: region });
  await setBilling(db(), { workspaceId, plan, creditUsd, actor: OPERATOR });
  const { key } = await createApiKey(db(), { workspaceId, name: 'billing', kind: 'user' });
  return { session, token: session.token, workspaceId, key, region };
}

/** The workspace's jobs (its managed ones with `pool`). */
export const jobCount = async (workspaceId: string, pool?: 'managed') =>
  Number(
    (
      await db()('jobs')
        .where({ workspace_id: workspaceId, ...(pool && { pool }) })
        .count<{ n: string }[]>('* as n')
    )[0].n,
  );

/** The account's spend and reservations, as exact decimals. */
export const accountFigures = (workspaceId: string) =>
  db()('billing_accounts')
    .where({ workspace_id: workspaceId })
    .first(db().raw('spent_usd::text AS spent'), db().raw('reserved_usd::text AS reserved'));

/** Long enough for the suite's meter (every 2 s) to tick at least `n` more times. */
export const meterTicks = (n: number) => sleep(n * 2000 + 500);
