// temporal: server
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createApiKey } from '../../src/auth/api-keys';
import type { ManagedChild } from '../../src/stack/child';
import { type AgentProcess, spawnAgent, waitFor } from '../support/agents';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { temporalCommand } from '../support/temporal-cli';
import { suiteClient } from '../support/temporal-client';
import { v0ok } from '../support/v0';
import { spawnWorker } from '../support/worker-process';

const { VersioningBehavior, VersionDrainageStatus } = temporal.api.enums.v1;
const TERMINAL = ['SUCCEEDED', 'FAILED', 'TIMED_OUT', 'CANCELLED'];
// 200 jobs open on v1 when v2 is made current, in three states: waiting for an agent that is not
// there yet (their selector), running on an agent, waiting out a retry's backoff.
const QUEUED = 100;
const RUNNING = 60;
const BACKING_OFF = 40;
const ON_V2 = 20;

/** Runs `fn` over `items`, `width` at a time. */
async function eachOf<T, R>(items: T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i]);
    }),
  );
  return out;
}

const msOf = (t?: { seconds?: unknown; nanos?: number | null } | null) =>
  t?.seconds ? Number(t.seconds) * 1000 + Math.floor((t.nanos ?? 0) / 1e6) : 0;

// Worker Versioning on the real stack, as docs/guides/upgrades.md tells an operator to run it:
// two worker processes, builds v1 and v2 of one deployment; v2 made current with the CLI while
// 200 runs are open on v1; v1 drained, stopped and deleted.
describe('worker versioning: a new build takes new jobs, open ones finish on theirs', function () {
  this.timeout(240_000);
  const api = apisPerTest();
  const children: ManagedChild[] = [];
  const agents: AgentProcess[] = [];
  let client: Client;
  before(async () => {
    client = await suiteClient();
  });
  after(async () => {
    for (const a of agents) await a.child.stop(2000);
    for (const c of children) await c.stop(2000);
    await client?.connection.close();
  });

  it(`keeps ${QUEUED + RUNNING + BACKING_OFF} open runs pinned to v1 through the switch, runs new jobs on v2, and retires v1`, async () => {
    const started = Date.now();
    const deploymentName = `versioning-${Date.now()}`;
    const taskQueue = deploymentName;
    const { namespace } = testEnv().config.temporal;
    const settings = {
      TEMPORAL_TASK_QUEUE: taskQueue,
      RATE_LIMIT_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_HOUR: '10000000',
      // Not a test of agent loss: a hand-out slow on a loaded machine is not taken back at 0.8 s.
      AGENT_LOST_AFTER_MS: '10000',
    };
    const versionOf = (buildId: string) => ({
      TEMPORAL_DEPLOYMENT_NAME: deploymentName,
      TEMPORAL_BUILD_ID: buildId,
      TEMPORAL_PROMOTE_IF_NO_CURRENT: 'true',
    });
    const routing = async () => {
      const { workerDeploymentInfo } = await client.workflowService.describeWorkerDeployment({
        namespace,
        deploymentName,
      });
      return workerDeploymentInfo!;
    };

    // v1 finds a deployment with no current version and makes itself current; v2, started next,
    // finds v1 current and leaves it so.
    const v1 = await spawnWorker(taskQueue, 'versioning-v1', { ...settings, ...versionOf('v1') });
    children.push(v1);
    assert.equal((await routing()).routingConfig?.currentDeploymentVersion?.buildId, 'v1');
    const v2 = await spawnWorker(taskQueue, 'versioning-v2', { ...settings, ...versionOf('v2') });
    children.push(v2);
    assert.match(fs.readFileSync(v2.logFile, 'utf8'), /deployment has a routed version: left as it is/);
    assert.equal((await routing()).routingConfig?.currentDeploymentVersion?.buildId, 'v1');

    const { url } = await api(settings);
    const session = await login();
    const workspaceId = session.user.workspaceId;
    const { key } = await createApiKey(testEnv().db, { workspaceId, name: 'agents', kind: 'user' });
    for (let i = 0; i < 2; i++) agents.push(await spawnAgent({ key, apiUrl: url, concurrency: 40 }));

    const { db } = testEnv();
    const rowsOf = (ids: string[]) => db('jobs').whereIn('id', ids).select('id', 'state', 'attempt', 'available_at');
    const submit = (body: object) =>
      v0ok('POST', '/jobs', { token: session.token, baseUrl: url, body }).then((b) => b.id as string);
    const submitAll = (bodies: object[]) => eachOf(bodies, 16, submit);
    const inState = (ids: string[], ok: (j: { state: string; attempt: number; available_at: Date }) => boolean) =>
      rowsOf(ids).then((rows) => rows.every(ok));
    // Queued: for an agent that comes only after the switch (their selector).
    const queued = await submitAll(
      Array.from({ length: QUEUED }, () => ({ type: 'COMMAND', command: 'true', selector: { lane: 'later' } })),
    );
    // Running: each holds its agent until the test opens the gate, after the switch.
    const scratch = fs.mkdtempSync(path.join(testEnv().dataDir, 'versioning-'));
    const gate = path.join(scratch, 'gate');
    const running = await submitAll(
      Array.from({ length: RUNNING }, () => ({
        type: 'COMMAND',
        command: 'while [ ! -e "$GATE" ]; do sleep 1; done',
        env: { GATE: gate },
      })),
    );
    await waitFor('the running jobs to run', () => inState(running, (j) => j.state === 'RUNNING'), 60_000);
    // Backing off: each fails its first attempt and succeeds on its second, 30 s later.
    const backingOff = await submitAll(
      Array.from({ length: BACKING_OFF }, (_, i) => ({
        type: 'COMMAND',
        command: '[ -e "$MARK" ] || { touch "$MARK"; exit 3; }',
        env: { MARK: path.join(scratch, `mark-${i}`) },
        retry: { maxAttempts: 2, backoffSeconds: 30 },
      })),
    );
    const onV1 = [...queued, ...running, ...backingOff];
    // Counts by state and attempt, for the message should the jobs not get there.
    const tally = (rows: Array<{ state: string; attempt: number }>) => {
      const counts = new Map<string, number>();
      for (const j of rows) counts.set(`${j.state}/${j.attempt}`, (counts.get(`${j.state}/${j.attempt}`) ?? 0) + 1);
      return JSON.stringify(Object.fromEntries(counts));
    };
    let seen = '';
    await waitFor(
      'every v1 job in its state',
      async () => {
        const now = Date.now();
        const [b, r, q] = await Promise.all([rowsOf(backingOff), rowsOf(running), rowsOf(queued)]);
        seen = `backing off ${tally(b)} (future ${b.filter((j) => new Date(j.available_at).getTime() > now).length}), running ${tally(r)}, queued ${tally(q)}`;
        return (
          b.every((j) => j.state === 'QUEUED' && j.attempt >= 2 && new Date(j.available_at).getTime() > now) &&
          r.every((j) => j.state === 'RUNNING') &&
          q.every((j) => j.state === 'QUEUED' && j.attempt === 1)
        );
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${seen}`);
    });

    // What the runbook counts before retiring a version: its open runs (visibility catches up in a moment).
    const openOn = async (buildId: string) =>
      Number(
        /Total: (\d+)/.exec(
          await temporalCommand([
            'workflow',
            'count',
            '--query',
            `TemporalWorkerDeploymentVersion = "${deploymentName}:${buildId}" AND ExecutionStatus = "Running"`,
          ]),
        )?.[1],
      );
    await waitFor('visibility to count the runs open on v1', async () => (await openOn('v1')) === onV1.length);

    // The runbook's commands, as it has them: a ramp at 0 % (no run goes to v2), stopped, then the
    // switch. CLI 1.5.1's `--build-id v2 --delete` would leave v2 ramping at 0 %; `--unversioned
    // --delete` sends the empty build ID that clears the ramp.
    const deployment = (...args: string[]) =>
      temporalCommand(['worker', 'deployment', ...args, '--deployment-name', deploymentName]);
    await deployment('set-ramping-version', '--build-id', 'v2', '--percentage', '0', '--yes');
    assert.equal((await routing()).routingConfig?.rampingDeploymentVersion?.buildId, 'v2');
    await deployment('set-ramping-version', '--unversioned', '--delete', '--yes');
    assert.equal((await routing()).routingConfig?.rampingDeploymentVersion ?? undefined, undefined);
    await deployment('set-current-version', '--build-id', 'v2', '--yes');
    const switchedAt = Date.now();
    const afterSwitch = await routing();
    assert.equal(afterSwitch.routingConfig?.currentDeploymentVersion?.buildId, 'v2');

    // The running jobs end, the queued jobs' agent arrives, and new jobs come in.
    fs.writeFileSync(gate, '');
    agents.push(await spawnAgent({ key, apiUrl: url, concurrency: 40, labels: { lane: 'later' } }));
    const onV2 = await submitAll(Array.from({ length: ON_V2 }, () => ({ type: 'COMMAND', command: 'true' })));
    const all = [...onV1, ...onV2];
    await waitFor(
      `all ${all.length} jobs terminal`,
      async () => (await rowsOf(all)).every((j) => TERMINAL.includes(j.state)),
      90_000,
    );
    const settledAt = Date.now();

    // Each job ended once, in success: one reported attempt each, two for a backing-off one (exit
    // 3, then 0), attempts one after another. An attempt the service took back without a report
    // (an answer that never reached the agent, on a loaded machine) is counted, not hidden.
    const rows = await rowsOf(all);
    assert.deepEqual(
      rows.filter((j) => j.state !== 'SUCCEEDED'),
      [],
    );
    const attempts = await db('job_attempts')
      .whereIn('job_id', all)
      .orderBy('assigned_at')
      .select('job_id', 'attempt', 'assigned_at', 'ended_at', 'end_reason', 'result');
    const byJob = new Map<string, typeof attempts>();
    for (const a of attempts) byJob.set(a.job_id, [...(byJob.get(a.job_id) ?? []), a]);
    const backingOffIds = new Set(backingOff);
    const takenBack: Record<string, number> = {};
    for (const id of all) {
      const list = byJob.get(id) ?? [];
      const what = `${id}: ${JSON.stringify(list.map((a) => [a.attempt, a.end_reason, a.result?.exitCode]))}`;
      assert.deepEqual(
        list.filter((a) => a.end_reason === 'result').map((a) => a.result?.exitCode),
        backingOffIds.has(id) ? [3, 0] : [0],
        what,
      );
      for (const a of list.filter((a) => a.end_reason !== 'result')) {
        assert.ok(['undelivered', 'agent_lost'].includes(a.end_reason) && a.result === null, what);
        takenBack[a.end_reason] = (takenBack[a.end_reason] ?? 0) + 1;
      }
      for (let k = 1; k < list.length; k++) assert.ok(list[k - 1].ended_at <= list[k].assigned_at, `${what}: overlap`);
      // Open at the switch: a queued or backing-off job's reported attempt started after it, a
      // running one's ended after it.
      const last = list.filter((a) => a.end_reason === 'result').at(-1)!;
      if (onV1.includes(id))
        assert.ok(
          new Date(running.includes(id) ? last.ended_at : last.assigned_at).getTime() > switchedAt,
          `${what}: open at the switch`,
        );
    }

    // One run per job (its workflow ID is the job's ID), none left open.
    const runs = new Map<string, number>();
    await waitFor(
      'visibility to show every run closed',
      async () => {
        runs.clear();
        for await (const r of client.workflow.list({ query: `WorkspaceId = "${workspaceId}"` })) {
          if (r.status.name === 'RUNNING') return false;
          runs.set(r.workflowId, (runs.get(r.workflowId) ?? 0) + 1);
        }
        return runs.size === all.length;
      },
      30_000,
    );
    assert.deepEqual(
      [...runs].filter(([, n]) => n !== 1),
      [],
    );

    // Each run is pinned to the version it started on, and every workflow task of it, before the
    // switch and after, was completed by that version's worker.
    let v1TasksAfterSwitch = 0;
    await eachOf(all, 16, async (id) => {
      const want = onV2.includes(id) ? 'v2' : 'v1';
      const handle = client.workflow.getHandle(id);
      const info = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      assert.equal(info?.behavior, VersioningBehavior.VERSIONING_BEHAVIOR_PINNED, id);
      assert.deepEqual(
        { deploymentName: info?.deploymentVersion?.deploymentName, buildId: info?.deploymentVersion?.buildId },
        { deploymentName, buildId: want },
        id,
      );
      const { events } = await handle.fetchHistory();
      for (const e of events ?? []) {
        const done = e.workflowTaskCompletedEventAttributes;
        if (!done) continue;
        assert.equal(done.deploymentVersion?.buildId, want, `${id}: task ${e.eventId} completed by its build`);
        if (want === 'v1' && msOf(e.eventTime) > switchedAt) v1TasksAfterSwitch++;
      }
    });
    // v1 served its runs after it stopped being current: their hand-outs, results, backoffs.
    assert.ok(v1TasksAfterSwitch >= QUEUED + RUNNING + BACKING_OFF, `v1 tasks after the switch: ${v1TasksAfterSwitch}`);

    // v1 drains once its last pinned run has closed; then its workers go and it is deleted.
    const describeV1 = () =>
      client.workflowService.describeWorkerDeploymentVersion({
        namespace,
        deploymentVersion: { deploymentName, buildId: 'v1' },
      });
    await waitFor(
      'v1 drained',
      async () =>
        (await describeV1()).workerDeploymentVersionInfo?.drainageInfo?.status ===
        VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED,
      60_000,
    );
    const drainedAt = Date.now();
    assert.equal(await openOn('v1'), 0);
    await v1.stop(10_000);
    // The server refuses while it remembers v1's pollers (matching.PollerHistoryTTL).
    const refusals = new Set<string>();
    await waitFor(
      'v1 deleted',
      () =>
        client.workflowService
          .deleteWorkerDeploymentVersion({ namespace, deploymentVersion: { deploymentName, buildId: 'v1' } })
          .then(
            () => true,
            (err: Error) => {
              refusals.add(err.message);
              return false;
            },
          ),
      30_000,
    );
    await assert.rejects(describeV1(), (err: { code?: number }) => err.code === 5 /* NOT_FOUND */);
    // The deployment's own workflow answers a describe (a query). Right after it removes a version
    // it can be between workflow tasks, and the server refuses the query (FAILED_PRECONDITION,
    // "Workflow task is not scheduled yet") or lets it time out (DEADLINE_EXCEEDED): asked again
    // until it answers; what it answers is what is asserted.
    let describesRefused = 0;
    const left = await waitFor(
      'the deployment to answer a describe after the delete',
      () =>
        routing().catch((err: { code?: number }) => {
          if (err.code !== 9 /* FAILED_PRECONDITION */ && err.code !== 4 /* DEADLINE_EXCEEDED */) throw err;
          describesRefused++;
          return undefined;
        }),
      60_000,
    );
    assert.deepEqual(
      (left.versionSummaries ?? []).map((v) => v.deploymentVersion?.buildId),
      ['v2'],
    );
    assert.equal(left.routingConfig?.currentDeploymentVersion?.buildId, 'v2');
    process.stderr.write(
      `    switch at ${switchedAt - started} ms; all terminal ${settledAt - switchedAt} ms later; ` +
        `v1 drained ${drainedAt - settledAt} ms after that; v1 tasks after the switch ${v1TasksAfterSwitch}; ` +
        `attempts taken back ${JSON.stringify(takenBack)}; ` +
        `delete refused first with: ${[...refusals].join(' | ') || 'nothing'}; ` +
        `describes refused after it: ${describesRefused}\n`,
    );
  });
});
