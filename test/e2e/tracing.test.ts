// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../../src/auth/api-keys';
import { createDataKeys, resolveCodecKeys } from '../../src/crypto/data-keys';
import { computeCodec } from '../../src/temporal/data-converter';
import { createDb } from '../../src/db/knex';
import { migrateLatest } from '../../src/db/migrate';
import type { ManagedChild } from '../../src/stack/child';
import { type RunningJaeger, startJaeger } from '../../src/stack/jaeger';
import { freePort } from '../../src/stack/ports';
import { ensureTool } from '../../src/stack/tools';
import { type AgentProcess, spawnAgent, waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { testEnv } from '../support/env';
import { ok, post, sleep } from '../support/http';
import { v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';
import { spawnWorker } from '../support/worker-process';

// One trace per job (docs/guides/tracing.md), read back from a real Jaeger: a job whose first
// attempt fails and whose second uploads an artifact, run by a traced API, worker and agent.
// The service here has an app database of its own, so its worker's relay alone delivers its
// webhooks (the shared lane's relays read another database).

interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: Array<{ refType: string; spanID: string; traceID: string }>;
  startTime: number;
  tags: Array<{ key: string; value: unknown }>;
  processID: string;
}
interface JaegerTrace {
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string }>;
}

const tag = (s: JaegerSpan, key: string) => s.tags.find((t) => t.key === key)?.value;
const parentOf = (s: JaegerSpan) => s.references.find((r) => r.refType === 'CHILD_OF')?.spanID;

describe('a job’s trace', function () {
  this.timeout(240_000);
  const children: ManagedChild[] = [];
  let agent: AgentProcess | undefined;
  let jaeger: RunningJaeger | undefined;
  let db: Knex | undefined;
  const receiver = new WebhookReceiver();

  const logs: string[] = [];
  afterEach(function () {
    // A failure says what the traced processes logged.
    if (this.currentTest?.state !== 'failed') return;
    for (const file of logs.filter((f) => fs.existsSync(f)))
      console.log(`--- ${file}\n${fs.readFileSync(file, 'utf8').split('\n').slice(-40).join('\n')}`);
  });
  after(async () => {
    await agent?.child.stop(2000);
    for (const c of children) await c.stop(2000);
    await jaeger?.stop();
    await receiver.stop();
    await db?.destroy();
  });

  it('holds the submit, both attempts’ hand-out, run and result, and the webhook delivery, in order, under one ID', async () => {
    const env = testEnv();
    jaeger = await startJaeger({
      binary: await ensureTool('jaeger', env.config.toolsDir),
      otlpPort: await freePort(),
      queryPort: await freePort(),
      queryGrpcPort: await freePort(),
      logFile: path.join(env.dataDir, 'logs', 'jaeger.log'),
    });
    const name = `compute_tracing_${Date.now()}`;
    const admin = createDb(env.vars.DATABASE_URL);
    await admin.raw(`create database ${name}`);
    await admin.destroy();
    const url = new URL(env.vars.DATABASE_URL);
    url.pathname = `/${name}`;
    db = createDb(url.toString());
    await migrateLatest(db);

    const taskQueue = `tracing-${Date.now()}`;
    const traced = {
      DATABASE_URL: url.toString(),
      TEMPORAL_TASK_QUEUE: taskQueue,
      OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint,
    };
    const worker = await spawnWorker(taskQueue, 'tracing-worker', traced);
    children.push(worker);
    const port = await freePort();
    children.push(await spawnApi(port, traced));
    logs.push(worker.logFile, path.join(env.dataDir, 'logs', `api-${port}.log`));
    const apiUrl = `http://127.0.0.1:${port}`;

    // A person's session on this API (its workspace is in this database), a webhook, a key.
    const email = `tracing-${Date.now()}@example.com`;
    assert.equal((await post('/auth/request-otp', { email }, undefined, apiUrl)).status, 200);
    const verified = await post('/auth/verify-otp', { email, code: env.mailbox.codeFor(email) }, undefined, apiUrl);
    const session = verified.body.payload as { token: string; user: { workspaceId: string } };
    await receiver.start();
    await v0ok('POST', '/webhooks', {
      token: session.token,
      baseUrl: apiUrl,
      body: { url: receiver.url, events: ['job.terminal'] },
    });
    const { key } = await createApiKey(db, { workspaceId: session.user.workspaceId, name: 'tracing', kind: 'user' });
    agent = await spawnAgent({ key, apiUrl, env: { OTEL_EXPORTER_OTLP_ENDPOINT: jaeger.otlpEndpoint } });
    logs.push(agent.logFile);

    // Attempt 1 fails; attempt 2 leaves the TRACEPARENT its process was given as an artifact.
    const submitted = await ok(
      '/compute/jobs/submit',
      {
        type: 'COMMAND',
        command: 'if [ "$COMPUTE_ATTEMPT" = 1 ]; then exit 3; fi; printf %s "$TRACEPARENT" > trace.txt',
        retry: { maxAttempts: 2, backoffSeconds: 1 },
        artifacts: { paths: ['trace.txt'] },
      },
      key,
      apiUrl,
    );
    const jobId = submitted.job_id as string;
    let job: { state: string; traceId: string | null; artifacts: Array<{ id: string }> } | undefined;
    await waitFor(
      'the job to succeed',
      async () => {
        await sleep(300);
        job = await ok('/compute/jobs/retrieve', { job_id: jobId }, key, apiUrl);
        return job!.state === 'succeeded' || job!.state === 'failed';
      },
      90_000,
    );
    assert.equal(job!.state, 'succeeded');
    const traceId = job!.traceId!;
    assert.match(traceId, /^[0-9a-f]{32}$/, 'the job record names its trace');
    await receiver.waitFor((all) => all.some((r) => r.event?.data?.job?.id === jobId), 30_000, 'job.terminal');
    const delivered = receiver.of(jobId)[0];
    assert.equal(delivered.event.data.job.traceId, traceId, 'the event’s job names the trace');
    assert.equal(delivered.headers.traceparent?.split('-')[1], traceId, 'the receiver may join the trace');

    // The Temporal run's memo names the trace too (read through the codec, as the UI does).
    const keys = createDataKeys(db, await resolveCodecKeys(env.config));
    const { dataConverter } = await computeCodec(db, env.config, keys);
    const client = new Client({
      connection: await Connection.connect({ address: env.config.temporal.address! }),
      dataConverter,
    });
    const described = await client.workflow.getHandle(jobId).describe();
    await client.connection.close();
    assert.equal(described.memo?.traceId, traceId);

    // The job's process got TRACEPARENT: its second attempt's run span.
    const { url: download } = await ok(
      '/compute/jobs/artifacts/presign-download',
      { job_id: jobId, id: job!.artifacts[0].id },
      session.token,
      apiUrl,
    );
    const given = await (await fetch(download)).text();
    assert.match(given, /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    // Spans arrive in batches from four processes: wait until the last part is in.
    let trace: JaegerTrace | undefined;
    const named = (op: string | RegExp) =>
      trace!.spans.filter((s) => (typeof op === 'string' ? s.operationName === op : op.test(s.operationName)));
    await waitFor(
      'the trace to hold every part',
      async () => {
        await sleep(500);
        const res = await fetch(`${jaeger!.queryUrl}/api/traces/${traceId}`);
        if (res.status !== 200) return false;
        trace = ((await res.json()) as { data: JaegerTrace[] }).data[0];
        return (
          named('job.run').length === 2 &&
          named(/\/compute\/nodes\/result$/).length === 2 &&
          named('webhook.deliver').length >= 1
        );
      },
      30_000,
    ).catch((err: Error) =>
      assert.fail(`${err.message}: ${trace?.spans.map((s) => s.operationName).join(', ') ?? 'no trace'}`),
    );
    const spans = trace!.spans;
    const service = (s: JaegerSpan) => trace!.processes[s.processID].serviceName;
    assert.ok(
      spans.every((s) => s.traceID === traceId),
      'one trace ID',
    );

    // The root: the submit's request, with the job's ID.
    const roots = spans.filter((s) => parentOf(s) === undefined);
    assert.equal(roots.length, 1, `one root: ${roots.map((s) => s.operationName).join(', ')}`);
    const [submit] = roots;
    assert.match(submit.operationName, /^POST .*\/compute\/jobs\/submit$/);
    assert.equal(tag(submit, 'job.id'), jobId);
    assert.equal(service(submit), 'compute-api');

    // Each attempt: its hand-out under the submit, its run on the agent under the hand-out, its
    // result's request under the run.
    const handOuts = named('job.hand-out').sort((a, b) => a.startTime - b.startTime);
    assert.deepEqual(
      handOuts.map((s) => tag(s, 'job.attempt')),
      [1, 2],
    );
    const runs = named('job.run').sort((a, b) => a.startTime - b.startTime);
    const results = named(/\/compute\/nodes\/result$/).sort((a, b) => a.startTime - b.startTime);
    for (const i of [0, 1]) {
      assert.equal(parentOf(handOuts[i]), submit.spanID, `hand-out ${i + 1} is the submit's child`);
      assert.equal(parentOf(runs[i]), handOuts[i].spanID, `run ${i + 1} is its hand-out's child`);
      assert.equal(service(runs[i]), 'compute-agent');
      assert.equal(tag(runs[i], 'job.attempt'), i + 1);
      assert.equal(parentOf(results[i]), runs[i].spanID, `result ${i + 1} is its run's child`);
    }
    assert.equal(tag(runs[0], 'process.exit.code'), 3);
    // The second attempt's artifact went up under its run, before its result.
    const uploads = named(/^PUT .*\/artifacts\/upload\//);
    assert.equal(uploads.length, 1, 'one upload');
    assert.equal(parentOf(uploads[0]), runs[1].spanID);
    assert.equal(given, `00-${traceId}-${runs[1].spanID}-01`, 'the process was given its run span');

    // The terminal event's delivery, on the worker, under the submit.
    const deliveries = named('webhook.deliver');
    const terminal = deliveries.find((s) => tag(s, 'webhook.event.type') === 'job.terminal')!;
    assert.ok(terminal, 'the job.terminal delivery');
    assert.equal(service(terminal), 'compute-worker');
    assert.equal(parentOf(terminal), submit.spanID);

    // In order.
    const order = [submit, handOuts[0], runs[0], results[0], handOuts[1], runs[1], uploads[0], results[1], terminal];
    for (let i = 1; i < order.length; i++)
      assert.ok(
        order[i].startTime >= order[i - 1].startTime,
        `${order[i].operationName} starts after ${order[i - 1].operationName}`,
      );

    // Temporal's client spans, through the SDK's interceptor: the run's start and its Updates. The
    // run starts under the submit, or, when the agent's poll was already waiting, with its first
    // assignment in the same call under the first hand-out (src/jobs/hand-off.ts).
    const ops = [...new Set(spans.map((s) => s.operationName))].join(', ');
    const [handedAtStart] = named('UpdateWithStartWorkflow:assign');
    if (handedAtStart) {
      assert.equal(parentOf(handedAtStart), handOuts[0].spanID, 'the start with its assignment is the hand-out');
      assert.equal(named('StartWorkflow:job').length, 0, ops);
    } else assert.equal(parentOf(named('StartWorkflow:job')[0]), submit.spanID, ops);
    const assigns = named('StartWorkflowUpdate:assign');
    assert.ok(assigns.length >= (handedAtStart ? 1 : 2), `an assignment each attempt: ${ops}`);
    assert.ok(named('StartWorkflowUpdate:result').length >= 1, ops);
  });
});
