import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { loadToolsDir } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { type Received, WebhookReceiver } from '../support/webhook-receiver';
import { checkArtifacts } from './checks/artifacts';
import type { Finding } from './checks/finding';
import { checkHttp } from './checks/http';
import { checkJobs } from './checks/jobs';
import { checkLeases } from './checks/leases';
import { checkLedger, spendOf } from './checks/ledger';
import { checkLogs } from './checks/logs';
import { checkWebhooks } from './checks/webhooks';
import { drainJobs, drainWebhooks } from './drain';
import { FAULT_KINDS, startFaults } from './faults';
import {
  COUNT_NAMES,
  type Counts,
  type SoakReport,
  kindFigures,
  latencyLines,
  summaryLine,
  unexpectedEndings,
} from './report';
import { startAgents, startSoakStack } from './stack';
import { type Tenant, setUpTenant } from './tenant';
import { ALL_KINDS, startWorkload } from './workload';

// The fault soak (issue 50, part 3): jobs of every kind on the production-shaped stack while
// processes are killed, databases crashed and connections cut; then, from the outside and from
// the database, the invariants that no fault may break. `npm run soak -- --minutes N` and
// test/integration/soak.test.ts run it.

export interface SoakOptions {
  minutes: number;
  /** Between faults, on average (default 4 s). */
  faultIntervalMs?: number;
  /** Between submits, on average (default 700 ms). */
  submitIntervalMs?: number;
  /** How long the drain waits for every acknowledged job to end (default 3 minutes). */
  drainMs?: number;
  /** The hard cap of the billed workspace (USD). */
  hardCapUsd?: number;
  /** Keep the stack's folder even when every count is 0. */
  keepData?: boolean;
  say?: (msg: string) => void;
}

/**
 * Room for the reservations (timeoutSeconds at the plan's prices) of about four managed jobs at
 * once: when the managed queue backs up in an outage, the credit gate refuses submits (402).
 */
const HARD_CAP_USD = 0.003;

/** A share of deliveries answered 500, so that the receiver sees retries of one event. */
const WEBHOOK_FAILURE_RATE = 0.1;

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const say = o.say ?? ((msg: string) => process.stderr.write(`${msg}\n`));
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-soak-'));
  fs.chmodSync(dataDir, 0o755);
  say(`soak: ${o.minutes} minute(s), data in ${dataDir}`);
  const receiver = await new WebhookReceiver().start();
  const verified = new WeakSet<Received>();
  let startedStack: Awaited<ReturnType<typeof startSoakStack>> | undefined;
  let clean = false;
  try {
    const booted = Date.now();
    const s = (startedStack = await startSoakStack({ dataDir, toolsDir: loadToolsDir(), log: (m) => say(`  ${m}`) }));
    const tenant = await setUpTenant({
      url: s.stack.url,
      databaseUrl: s.stack.databaseUrl,
      logsDir: s.logsDir,
      webhookUrl: receiver.url,
      hardCapUsd: o.hardCapUsd ?? HARD_CAP_USD,
    });
    const signer = new Webhook(tenant.webhookSecret);
    receiver.respond = (r) => {
      try {
        signer.verify(r.body, r.headers);
        verified.add(r);
      } catch {
        return { status: 400 };
      }
      return { status: Math.random() < WEBHOOK_FAILURE_RATE ? 500 : 204 };
    };
    await startAgents(s, tenant.workspaceId);
    await agentsOnline(tenant, 2);
    say(
      `soak: stack, tenant and agents ready in ${Math.round((Date.now() - booted) / 1000)} s${s.managed ? '' : ' (no managed agent: not root)'}`,
    );

    const runId = `soak-${Date.now().toString(36)}`;
    const workload = startWorkload({
      client: tenant.client,
      runId,
      managed: s.managed,
      intervalMs: o.submitIntervalMs ?? 700,
      maxInFlight: 12,
      log: say,
    });
    const faults = startFaults(s, { intervalMs: o.faultIntervalMs ?? 4000, say });
    await sleep(o.minutes * 60_000);
    const faultLog = await faults.stop();
    await workload.stop();
    const jobs = workload.jobs;
    const acked = jobs.filter((j) => j.id);
    say(`soak: submits stopped: ${jobs.length} submitted, ${acked.length} acknowledged; draining`);
    const drainStarted = Date.now();
    const records = await drainJobs(tenant.client, jobs, o.drainMs ?? 180_000, say);
    await drainWebhooks(receiver, records, 60_000);
    say(`soak: drained in ${Math.round((Date.now() - drainStarted) / 1000)} s; checking`);

    const db = createDb(s.stack.databaseUrl);
    const findings: Record<string, Finding[]> = {};
    let http: Awaited<ReturnType<typeof checkHttp>>;
    let spend: Awaited<ReturnType<typeof spendOf>>;
    let downloaded = 0;
    try {
      const j = await checkJobs(db, tenant.workspaceId, jobs, records);
      const w = await checkWebhooks(db, tenant.workspaceId, records, receiver.received, verified);
      const a = await checkArtifacts(db, tenant.client, tenant.workspaceId, records);
      downloaded = a.downloaded;
      findings.lost = j.lost;
      findings.doubled = [...j.doubled, ...w.doubled];
      findings.overlapping_leases = await checkLeases(db, tenant.workspaceId);
      findings.log_gaps = await checkLogs(db, tenant.client, tenant.workspaceId, records);
      findings.ledger_mismatches = await checkLedger(db, tenant.workspaceId);
      findings.webhook_missing = w.missing;
      findings.artifact_mismatches = a.found;
      spend = await spendOf(db, tenant.workspaceId);
      http = await checkHttp(tenant.client, s.logsDir);
      findings.http_500 = http.found;
    } finally {
      await db.destroy();
    }
    const counts = Object.fromEntries(COUNT_NAMES.map((n) => [n, new Set(findings[n].map(keyOf)).size])) as Counts;
    // Each 500 the APIs logged was answered to someone: the soak, an agent, or another caller.
    counts.http_500 = Math.max(http.client500 + http.agent500, http.apiLogged500) + http.missingRetryAfter;

    const kinds = kindFigures(jobs, records);
    const unexpected = unexpectedEndings(kinds);
    const lines = [
      `faults: ${FAULT_KINDS.map((k) => `${k}=${faultLog.counts[k]}`).join(' ')}`,
      `restarts: ${[...s.stack.apis, ...s.stack.workers, s.stack.temporal.server, ...s.agents].map((p) => `${p.name}=${p.restarts()}`).join(' ')}`,
      ...ALL_KINDS.map((k) => {
        const f = kinds[k];
        const states = Object.entries(f.states).map(([state, n]) => `${state}=${n}`);
        return `jobs ${k}: submitted=${f.submitted} acknowledged=${f.acknowledged} ended=${f.ended} ${states.join(' ')}`;
      }),
      `unexpected endings: ${unexpected.length ? unexpected.join(', ') : 'none'}`,
      `refused submits: ${refusals(jobs.filter((j) => !j.id).map((j) => j.refused ?? 'unanswered'))}`,
      `http: ${[...tenant.client.statuses]
        .sort(([a], [b]) => a - b)
        .map(([st, n]) => `${st}=${n}`)
        .join(
          ' ',
        )} network_errors=${tenant.client.networkErrors} agent_500=${http.agent500} api_logged_500=${http.apiLogged500} missing_retry_after=${http.missingRetryAfter}`,
      `webhooks: ${receiver.received.length} requests received, ${downloaded} artifact(s) downloaded`,
      `billing: spent ${spend.spent} USD of a hard cap of ${spend.cap} USD`,
      ...latencyLines(jobs, records, receiver.received),
      ...COUNT_NAMES.flatMap((n) =>
        findings[n].slice(0, 10).map((f) => `  ${n}: ${f.jobId ? `${f.jobId}: ` : ''}${f.what}`),
      ),
      summaryLine(o.minutes, faultLog.total, acked.length, counts),
    ];
    clean = COUNT_NAMES.every((n) => counts[n] === 0) && unexpected.length === 0;
    if (!clean || o.keepData) lines.splice(lines.length - 1, 0, `data kept in ${dataDir}`);
    return {
      minutes: o.minutes,
      managedAgent: s.managed,
      faults: faultLog,
      jobs: acked.length,
      kinds,
      counts,
      unexpected,
      findings,
      lines,
    };
  } finally {
    await startedStack?.stop();
    await receiver.stop();
    if (clean && !o.keepData) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A finding counts once per job (or once, when it names none). */
const keyOf = (f: Finding) => f.jobId ?? f.what;

function refusals(reasons: string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return counts.size ? [...counts].map(([r, n]) => `${r} x${n}`).join(', ') : 'none';
}

/** The workspace's self-hosted agents are ONLINE (the managed one is the operator's, not listed there). */
async function agentsOnline(tenant: Tenant, n: number): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const list = await tenant.client.retried('GET', '/v0/agents');
    const online = (list.body?.items ?? []).filter((a: { state: string }) => a.state === 'ONLINE').length;
    if (online >= n) return;
    if (Date.now() > deadline) throw new Error(`only ${online} of ${n} agents online after 2 minutes`);
    await sleep(500);
  }
}
