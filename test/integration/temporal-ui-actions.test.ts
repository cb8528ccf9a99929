// temporal: dev, server
import assert from 'node:assert/strict';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import { login } from '../support/auth';
import {
  heartbeatInBackground,
  newWorkspace,
  ok,
  pollOne,
  post,
  registerNode,
  resultOf,
  submit,
} from '../support/http';
import { v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';
import { suiteClient } from '../support/temporal-client';
import { temporalCli } from '../support/temporal-cli';
import { stateQuery } from '../../workflows/definitions';

// What an operator does to a job's run in Temporal reaches the job, driven here with the Temporal
// CLI the project builds (the UI makes the same calls). A run terminated ends its job CANCELLED
// with failureReason "terminated in Temporal: <reason>"; a cancellation requested (one run, or a
// batch by query) is a cancel of the job: "cancelled in Temporal". Either way the agent is told
// to stop, its late result is 409, the webhook events and the audit entry are written, and a
// queued job is never handed out.

/**
 * A job kept off agents by `selector: {nobody: 'here'}` and ended is never handed out: an agent
 * whose labels match polls and gets nothing, yet takes a job of that selector submitted after.
 */
async function neverHandedOut(key: string, idle: { nodeId: string; nodeKey: string }) {
  const matching = await registerNode(key, { nobody: 'here' }, 'matching');
  assert.equal(await pollOne(idle, 0), undefined, 'never handed out');
  assert.equal(await pollOne(matching, 0), undefined, 'never handed out, even to an agent it matches');
  const control = await submit(key, { selector: { nobody: 'here' } });
  assert.equal((await pollOne(matching, 5))?.job_id, control.job_id, 'that agent takes a job of the same selector');
  await ok('/compute/jobs/cancel', { job_id: control.job_id }, key);
}

const terminate = (workflowId: string, reason: string) =>
  temporalCli('terminate', '--workflow-id', workflowId, '--reason', reason);

describe('a job whose run is terminated in Temporal', function () {
  this.timeout(120_000);
  const db = () => testEnv().db;
  const transitions = () => testEnv().service.services!.transitions;
  const rowOf = (jobId: string) => db()('jobs').where({ id: jobId }).first();
  const sweep = async () =>
    (await transitions().repairBehind({ silentForMs: 60_000, closedSince: new Date(Date.now() - 60_000) })).repaired;

  /** True once visibility, where the sweep looks, lists the job's run as terminated. */
  const terminatedInVisibility = async (jobId: string) =>
    (await temporalCli('count', '--query', `WorkflowId = "${jobId}" AND ExecutionStatus = "Terminated"`)).includes(
      'Total: 1',
    );

  /** The job's webhook events in the outbox, by type. */
  const eventsOf = async (jobId: string) =>
    (await db()('webhook_events').where({ job_id: jobId }).orderBy('seq').pluck('type')) as string[];

  it('ends a queued job at the next sweep: CANCELLED with the reason, audited, its events sent, never handed out', async () => {
    const owner = await login();
    const workspaceId = owner.user.workspaceId;
    const key = (await ok('/compute/api-keys/create', { name: 'ops', kind: 'user' }, owner.token)).key as string;
    const receiver = await new WebhookReceiver().start();
    const hook = await v0ok('POST', '/webhooks', { token: owner.token, body: { url: receiver.url } });
    const node = await registerNode(key, {}, 'idle');
    const job = await submit(key, { selector: { nobody: 'here' } });
    await terminate(job.job_id, 'stuck in review');
    assert.equal((await rowOf(job.job_id)).state, 'QUEUED', 'nothing tells the row at once');
    // The sweep finds terminated runs in visibility, which the server writes after the terminate
    // returns (on PostgreSQL visibility, often later than the next statement here).
    await waitFor('visibility to list the run as terminated', () => terminatedInVisibility(job.job_id));
    assert.ok((await sweep()) >= 1);
    const row = await rowOf(job.job_id);
    assert.deepEqual(
      [row.state, row.failure_reason, row.lease_id],
      ['CANCELLED', 'terminated in Temporal: stuck in review', null],
    );
    const [audit] = await db()('audit_log')
      .where({ workspace_id: workspaceId, target_id: job.job_id, action: 'job.cancel' })
      .select('actor_type', 'details');
    assert.deepEqual([audit.actor_type, audit.details.reason], ['system', 'terminated in Temporal: stuck in review']);
    assert.deepEqual(await eventsOf(job.job_id), ['job.created', 'job.transitioned', 'job.terminal']);
    await receiver.waitFor(() => receiver.of(job.job_id).length === 3, 20_000, 'the three events delivered');
    assert.deepEqual(
      receiver.of(job.job_id).map((r) => [r.event.type, r.event.data.job.state]),
      [
        ['job.created', 'QUEUED'],
        ['job.transitioned', 'CANCELLED'],
        ['job.terminal', 'CANCELLED'],
      ],
    );
    await v0ok('DELETE', `/webhooks/${hook.id}`, { token: owner.token, status: 204 });
    await receiver.stop();
    const retrieved = await ok('/compute/jobs/retrieve', { job_id: job.job_id }, key);
    assert.deepEqual(
      [retrieved.state, retrieved.failureReason],
      ['cancelled', 'terminated in Temporal: stuck in review'],
    );
    await neverHandedOut(key, node);
    assert.equal(
      (await sweep()) >= 0 && (await rowOf(job.job_id)).version,
      row.version,
      'a second sweep changes nothing',
    );
  });

  it('a queued job claimed after its run was terminated is ended by the claim, not handed out', async () => {
    const { key } = await newWorkspace();
    const job = await submit(key, { labels: { lane: 'terminated' } });
    await terminate(job.job_id, 'by the claim');
    const node = await registerNode(key, {}, 'claimer');
    assert.equal(await pollOne(node, 0), undefined);
    await waitFor('the claim ended it', async () => (await rowOf(job.job_id)).state === 'CANCELLED');
    assert.equal((await rowOf(job.job_id)).failure_reason, 'terminated in Temporal: by the claim');
  });

  it('ends a running job: its agent is told to stop, its late result is 409', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key, {}, 'runner');
    const job = await submit(key, { command: 'sleep 60' });
    const held = (await pollOne(node, 5))!;
    assert.equal(held.job_id, job.job_id);
    const beat = heartbeatInBackground(node, [job.job_id]);
    try {
      await terminate(job.job_id, 'runaway');
      // Its result, arriving after the termination, ends the job then and is refused.
      const late = await post('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
      assert.equal(late.status, 409, JSON.stringify(late.body));
      assert.equal(late.body.code, 'job.not_assigned');
      const row = await rowOf(job.job_id);
      assert.deepEqual([row.state, row.failure_reason], ['CANCELLED', 'terminated in Temporal: runaway']);
      const attempt = await db()('job_attempts')
        .where({ lease_id: held.leaseId })
        .first('end_reason', 'kill_requested');
      assert.deepEqual(attempt, { end_reason: 'cancelled', kill_requested: true });
      const told = await post(
        '/compute/nodes/heartbeat',
        { nodeId: node.nodeId, runningJobs: [job.job_id] },
        node.nodeKey,
      );
      assert.deepEqual(told.body.payload.cancel, [job.job_id], 'the agent is told to stop it');
      const logs = await post(
        '/compute/nodes/logs',
        {
          nodeId: node.nodeId,
          job_id: job.job_id,
          leaseId: held.leaseId,
          lines: [{ seq: 1, stream: 'stdout', line: 'late', ts: new Date().toISOString() }],
        },
        node.nodeKey,
      );
      assert.equal(logs.status, 409, 'its late logs too');
    } finally {
      await beat.stop();
    }
  });
});

describe('a job whose run is cancelled in Temporal', function () {
  this.timeout(180_000);
  const db = () => testEnv().db;
  const rowOf = (jobId: string) => db()('jobs').where({ id: jobId }).first();
  const auditOf = (jobId: string) =>
    db()('audit_log').where({ target_id: jobId, action: 'job.cancel' }).select('actor_type', 'actor_id', 'details');

  it('cancels a queued job at once, audited as Temporal, never handed out', async () => {
    const { key } = await newWorkspace();
    const job = await submit(key, { selector: { nobody: 'here' } });
    await temporalCli('cancel', '--workflow-id', job.job_id);
    await waitFor('the job cancelled', async () => (await rowOf(job.job_id)).state === 'CANCELLED');
    const row = await rowOf(job.job_id);
    assert.deepEqual([row.failure_reason, row.lease_id], ['cancelled in Temporal', null]);
    const [entry] = await auditOf(job.job_id);
    assert.deepEqual(
      [entry.actor_type, entry.actor_id, entry.details.reason],
      ['system', 'temporal', 'cancelled in Temporal'],
    );
    assert.equal(
      (await ok('/compute/jobs/retrieve', { job_id: job.job_id }, key)).failureReason,
      'cancelled in Temporal',
    );
    await neverHandedOut(key, await registerNode(key, {}, 'late'));
  });

  it('cancels a running job: its agent is told, and its result ends it CANCELLED', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key, {}, 'runner');
    const job = await submit(key, { command: 'sleep 60' });
    const held = (await pollOne(node, 5))!;
    await temporalCli('cancel', '--workflow-id', job.job_id);
    await waitFor('the job cancelling', async () => (await rowOf(job.job_id)).state === 'CANCELLING');
    const told = await post(
      '/compute/nodes/heartbeat',
      { nodeId: node.nodeId, runningJobs: [job.job_id] },
      node.nodeKey,
    );
    assert.deepEqual(told.body.payload.cancel, [job.job_id], 'the agent is told to stop it');
    const stopped = await post('/compute/nodes/result', resultOf(node, held, 137), node.nodeKey);
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    await waitFor('the job cancelled', async () => (await rowOf(job.job_id)).state === 'CANCELLED');
    assert.equal((await rowOf(job.job_id)).failure_reason, 'cancelled in Temporal');
    assert.equal((await auditOf(job.job_id)).length, 1, 'one audit entry for the cancel');
  });

  it('batch-cancels queued jobs by a Labels query: every one ends, and nothing else', async () => {
    const owner = await login();
    const batch = `b${Date.now()}`;
    const JOBS = 1000;
    const started = Date.now();
    const ids: string[] = [];
    const queue = (labels: Record<string, string>) =>
      v0ok('POST', '/jobs', {
        token: owner.token,
        body: { type: 'COMMAND', command: 'true', labels, selector: { nobody: 'here' } },
      });
    for (let i = 0; i < JOBS; i += 25) {
      const made = await Promise.all(Array.from({ length: Math.min(25, JOBS - i) }, () => queue({ batch })));
      ids.push(...made.map((j) => j.id as string));
    }
    const bystander = { job_id: (await queue({ batch: `${batch}-other` })).id as string };
    const submitted = Date.now();
    await waitFor(
      'visibility lists every job',
      async () => {
        const out = await temporalCli('count', '--query', `Labels="batch=${batch}" AND ExecutionStatus="Running"`);
        return out.includes(String(JOBS));
      },
      30_000,
    );
    const asked = Date.now();
    await temporalCli('cancel', '--query', `Labels="batch=${batch}"`, '--reason', 'batch test', '--yes');
    await waitFor(
      'every job cancelled',
      async () => {
        const { n } = (await db()('jobs').whereIn('id', ids).where({ state: 'CANCELLED' }).count('* as n'))[0] as {
          n: string;
        };
        return Number(n) === JOBS;
      },
      120_000,
    );
    const done = Date.now();
    process.stderr.write(
      `      batch: ${JOBS} jobs submitted in ${((submitted - started) / 1000).toFixed(1)} s; batch cancel asked → all CANCELLED in the API in ${((done - asked) / 1000).toFixed(1)} s\n`,
    );
    assert.equal((await rowOf(bystander.job_id)).state, 'QUEUED', 'a job the query does not name is left alone');
    const reasons = await db()('jobs').whereIn('id', ids).distinct('failure_reason').pluck('failure_reason');
    assert.deepEqual(reasons, ['cancelled in Temporal']);
  });
});

describe('a job whose run is reset or signalled in Temporal', function () {
  this.timeout(120_000);
  const db = () => testEnv().db;
  const rowOf = (jobId: string) => db()('jobs').where({ id: jobId }).first();
  /** An owner's workspace with a webhook, so that its jobs' events are written; `key` submits and registers. */
  const hookedWorkspace = async () => {
    const owner = await login();
    const key = (await ok('/compute/api-keys/create', { name: 'ops', kind: 'user' }, owner.token)).key as string;
    const receiver = await new WebhookReceiver().start();
    await v0ok('POST', '/webhooks', { token: owner.token, body: { url: receiver.url } });
    return { owner, key, receiver };
  };

  it('reset to its first workflow task: back to QUEUED as a new attempt, the old lease fenced, the reset run replays', async () => {
    const { key, receiver } = await hookedWorkspace();
    after(() => receiver.stop());
    const node = await registerNode(key, {}, 'runner');
    const job = await submit(key, { command: 'sleep 60' });
    const held = (await pollOne(node, 5))!;
    await waitFor('the assignment written', async () => (await rowOf(job.job_id)).state === 'RUNNING');
    const before = await rowOf(job.job_id);
    assert.equal(before.attempt, 1);
    const beat = heartbeatInBackground(node, [job.job_id]);
    try {
      // The UI's Reset, its default: Updates after the point are reapplied (the assignment among them).
      await temporalCli(
        'reset',
        '--workflow-id',
        job.job_id,
        '--type',
        'FirstWorkflowTask',
        '--reason',
        'replay from the start',
      );
      await waitFor('the reset run took the row over', async () => (await rowOf(job.job_id)).version > before.version);
      const row = await rowOf(job.job_id);
      assert.deepEqual(
        [row.state, row.attempt, row.lease_id],
        ['QUEUED', 2, null],
        'the state at the reset point, as a new attempt',
      );
      assert.deepEqual(
        await db()('job_attempts').where({ lease_id: held.leaseId }).first('end_reason', 'kill_requested'),
        { end_reason: 'reset', kill_requested: true },
      );
      const told = await post(
        '/compute/nodes/heartbeat',
        { nodeId: node.nodeId, runningJobs: [job.job_id] },
        node.nodeKey,
      );
      assert.deepEqual(told.body.payload.cancel, [job.job_id], "the old attempt's agent is told to stop");
      const late = await post('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
      assert.deepEqual([late.status, late.body.code], [409, 'job.not_assigned'], 'the old lease is fenced');
      const logs = await post(
        '/compute/nodes/logs',
        {
          nodeId: node.nodeId,
          job_id: job.job_id,
          leaseId: held.leaseId,
          lines: [{ seq: 1, stream: 'stdout', line: 'late', ts: new Date().toISOString() }],
        },
        node.nodeKey,
      );
      assert.equal(logs.status, 409, 'its logs too');
      const [audit] = await db()('audit_log')
        .where({ target_id: job.job_id, action: 'job.reset' })
        .select('actor_type', 'actor_id', 'details');
      assert.deepEqual([audit.actor_type, audit.actor_id, audit.details.leaseFenced], ['system', 'temporal', true]);
      assert.match(
        audit.details.reason,
        /: replay from the start$/,
        'the reason as Temporal gives it, after who reset',
      );
      const events = await db()('webhook_events').where({ job_id: job.job_id }).orderBy('seq').select('type', 'data');
      assert.deepEqual(events.map((e) => [e.type, e.data.job.state]).slice(-1), [['job.transitioned', 'QUEUED']]);
    } finally {
      await beat.stop();
    }
    // A new attempt runs to its end under a new lease.
    const again = (await pollOne(node, 5))!;
    assert.equal(again.job_id, job.job_id);
    assert.notEqual(again.leaseId, held.leaseId);
    assert.equal(again.attempt, 2);
    const done = await post('/compute/nodes/result', resultOf(node, again, 0), node.nodeKey);
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const retrieved = await ok('/compute/jobs/retrieve', { job_id: job.job_id }, key);
    assert.deepEqual([retrieved.state, retrieved.attempt], ['succeeded', 2]);
    // A query of the closed run replays its whole history, as the reset run, on a worker.
    const client = await suiteClient();
    const replayed = await client.workflow.getHandle(job.job_id).query(stateQuery);
    assert.deepEqual([replayed.state, replayed.attempt, replayed.leaseId], ['SUCCEEDED', 2, again.leaseId]);
    const { events } = await client.workflow.getHandle(job.job_id).fetchHistory();
    assert.ok(
      events!.some((e) => e.workflowTaskFailedEventAttributes?.failure?.message?.endsWith('replay from the start')),
      'the history shows why',
    );
  });

  it('the `cancel` signal with its documented input cancels a running job, as the API does', async () => {
    const { owner, key, receiver } = await hookedWorkspace();
    after(() => receiver.stop());
    const node = await registerNode(key, {}, 'runner');
    const job = await submit(key, { command: 'sleep 60' });
    const held = (await pollOne(node, 5))!;
    // What the UI shows on the run's page: its handlers, decoded by the codec endpoint for an owner.
    const metadata = await temporalCli(
      'metadata',
      '--workflow-id',
      job.job_id,
      '--codec-endpoint',
      `${testEnv().url}/codec`,
      '--codec-auth',
      `Bearer ${owner.token}`,
    );
    assert.match(metadata, /cancel/, 'the UI lists the signal');
    assert.match(metadata, /Input: \{\} or \{"reason": "why"\}/, 'with its input');
    await temporalCli(
      'signal',
      '--workflow-id',
      job.job_id,
      '--name',
      'cancel',
      '--input',
      '{"reason": "from the UI"}',
    );
    await waitFor('the job cancelling', async () => (await rowOf(job.job_id)).state === 'CANCELLING');
    const told = await post(
      '/compute/nodes/heartbeat',
      { nodeId: node.nodeId, runningJobs: [job.job_id] },
      node.nodeKey,
    );
    assert.deepEqual(told.body.payload.cancel, [job.job_id], 'the agent is told to stop it');
    assert.equal((await post('/compute/nodes/result', resultOf(node, held, 143), node.nodeKey)).status, 200);
    await waitFor('the job cancelled', async () => (await rowOf(job.job_id)).state === 'CANCELLED');
    assert.equal((await rowOf(job.job_id)).failure_reason, 'cancelled in Temporal');
    const entries = await db()('audit_log')
      .where({ target_id: job.job_id, action: 'job.cancel' })
      .select('actor_type', 'actor_id');
    assert.deepEqual(entries, [{ actor_type: 'system', actor_id: 'temporal' }]);
    assert.deepEqual(await db()('webhook_events').where({ job_id: job.job_id }).orderBy('seq').pluck('type'), [
      'job.created',
      'job.transitioned',
      'job.transitioned',
      'job.transitioned',
      'job.terminal',
    ]);
  });
});
