import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { loadConfig } from '../../src/config';
import { startLocalStack } from '../../src/stack/local-stack';
import { freePort } from '../../src/stack/ports';
import { assignUpdate, cancelUpdate, recheckAgentSignal, resultUpdate } from '../../workflows/definitions';
import { FakeActivities, startJob, waitForSnapshot, workflowInput } from './workflow-harness';

// `npm run record:histories`: runs the job workflow through scripted lives on a throw-away
// Temporal dev server and writes each history to test/fixtures/histories. The replay test then
// holds every later version of the workflow to these recorded decisions. Re-record only when a
// change to the workflow is meant to break old histories (and version it with patching instead
// if runs of the old code may still be open).

const OUT_DIR = path.resolve(__dirname, '../fixtures/histories');
type Scenario = (client: Client, taskQueue: string, fake: FakeActivities) => Promise<WorkflowHandle>;

const assign = (h: WorkflowHandle, leaseId: string) => h.executeUpdate(assignUpdate, { args: [{ leaseId, agentId: 'agent-rec' }] });
const result = (h: WorkflowHandle, leaseId: string, exitCode: number) =>
  h.executeUpdate(resultUpdate, { args: [{ leaseId, exitCode, runtimeMs: 7 }] });
const claimable = (h: WorkflowHandle) => waitForSnapshot(h, (s) => s.state === 'QUEUED' && Date.parse(s.availableAt) <= Date.now());

const SCENARIOS: Record<string, Scenario> = {
  // Agent lost once, requeued; the next attempt exits 1 and retries after its backoff; then success.
  'loss-retry-success': async (client, taskQueue, fake) => {
    const h = await startJob(client, taskQueue, workflowInput({ retry: { maxAttempts: 2, backoffSeconds: 1 }, labels: { os: 'linux' } }));
    await assign(h, 'lease-1');
    fake.silent.add('lease-1');
    await claimable(h);
    await assign(h, 'lease-2');
    await result(h, 'lease-2', 1);
    await result(h, 'lease-2', 1);
    await claimable(h);
    await assign(h, 'lease-3');
    await result(h, 'lease-3', 0);
    return h;
  },
  // Runs into its timeout.
  timeout: async (client, taskQueue) => {
    const h = await startJob(client, taskQueue, workflowInput({ timeoutSeconds: 1 }));
    await assign(h, 'lease-1');
    return h;
  },
  // Drain deadline requeues; the next attempt is cancelled and the grace runs out.
  'drain-cancel-grace': async (client, taskQueue, fake) => {
    const h = await startJob(client, taskQueue, workflowInput());
    await assign(h, 'lease-1');
    fake.drainDeadlines.set('lease-1', Date.now() + 200);
    await h.signal(recheckAgentSignal);
    await claimable(h);
    await assign(h, 'lease-2');
    await h.executeUpdate(cancelUpdate);
    return h;
  },
  // A manual retry's run: it projects its QUEUED state first, then is cancelled while queued.
  'manual-retry-cancel-queued': async (client, taskQueue) => {
    const input = { ...workflowInput(), attempt: 2, version: 5, manualRetry: true };
    const h = await startJob(client, taskQueue, input);
    await waitForSnapshot(h, (s) => s.version === 6);
    await h.executeUpdate(cancelUpdate);
    return h;
  },
};

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-record-'));
  const stack = await startLocalStack({
    dataDir,
    toolsDir: loadConfig().toolsDir,
    ports: { postgres: 0, temporal: await freePort() },
    ephemeralTemporal: true,
    start: { postgres: false, temporal: true, minio: false },
    log: (msg) => console.error(`[stack] ${msg}`),
  });
  const env = await TestWorkflowEnvironment.createFromExistingServer({ address: stack.temporalAddress! });
  const fake = new FakeActivities();
  const taskQueue = 'record-histories';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowsPath: require.resolve('../../workflows'),
    activities: fake.activities,
  });
  try {
    await worker.runUntil(async () => {
      fs.mkdirSync(OUT_DIR, { recursive: true });
      for (const [name, scenario] of Object.entries(SCENARIOS)) {
        fake.reset();
        const handle = await scenario(env.client, taskQueue, fake);
        const end = await handle.result();
        const history = await handle.fetchHistory();
        fs.writeFileSync(path.join(OUT_DIR, `${name}.json`), `${historyToJSON(history)}\n`);
        console.log(`${name}: ${end.state}, ${history.events?.length} events`);
      }
    });
  } finally {
    await env.teardown();
    await stack.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
