import assert from 'node:assert/strict';
import { suiteClient } from '../support/temporal-client';
import { jobsServiceOn, memberOf, withStart } from '../support/jobs-service';
import { type Client, Connection, ServiceError } from '@temporalio/client';
import { ManifestSchema } from '../../src/jobs/schemas';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';
import { AppError } from '../../src/shared/errors';
import { newId } from '../../src/shared/ids';
import { reconcileWorkspace, testEnv } from '../support/env';
import { newWorkspace, pollOne, registerNode, resultOf, ok, retrieve } from '../support/http';

/** A gRPC failure as the Temporal client reports it. */
const grpcError = (code: number, what: string) =>
  new ServiceError(what, { cause: Object.assign(new Error(what), { code }) });
const DEADLINE_EXCEEDED = 4;
const UNAVAILABLE = 14;
const INVALID_ARGUMENT = 3;

type Fault = { when: 'before' | 'after'; error: () => Error; meanwhile?: (workflowId: string) => Promise<void> };

describe('submit across an ambiguous Temporal error', () => {
  let connection: Connection;
  let real: Client;
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    real = await suiteClient(connection);
  });
  after(() => connection.close());

  /**
   * The jobs service over the real Temporal client, with one fault injected into the start call:
   * thrown before the start reaches the server, or after it was applied there.
   */
  const jobsWith = async (fault: Fault) =>
    (
      await jobsServiceOn(
        withStart(real, async (...args) => {
          if (fault.when === 'after') {
            await real.workflow.start(...args);
            await fault.meanwhile?.(args[1].workflowId);
          }
          throw fault.error();
        }),
      )
    ).jobs;

  const manifest = ManifestSchema.parse({ type: 'COMMAND', command: 'echo ambiguous' });
  const rowsOf = (workspaceId: string) =>
    testEnv().db('jobs').where({ workspace_id: workspaceId }).select('id', 'workflow_started');
  const workflowStatus = async (jobId: string) =>
    real.workflow
      .getHandle(workflowIdOf(jobId))
      .describe()
      .then(
        (d) => d.status.name,
        () => 'NONE',
      );

  it('a deadline after the start applied keeps the row for the reconciler, which makes it visible; it runs once', async () => {
    const { key, workspaceId } = await newWorkspace();
    const jobs = await jobsWith({ when: 'after', error: () => grpcError(DEADLINE_EXCEEDED, 'deadline exceeded') });
    await assert.rejects(
      jobs.submit(memberOf(workspaceId), manifest),
      (e: AppError) => e.code === 'dependency.unavailable',
    );
    const [row] = await rowsOf(workspaceId);
    assert.ok(row, 'the row is kept: the workflow may exist');
    assert.equal(row.workflow_started, false, 'not yet visible');
    assert.equal(await workflowStatus(row.id), 'RUNNING');
    assert.deepEqual(await reconcileWorkspace(workspaceId).then((r) => r.started >= 1), true);
    const node = await registerNode(key);
    const held = (await pollOne(node, 2))!;
    assert.equal(held.job_id, row.id);
    await ok('/compute/nodes/result', resultOf(node, held, 0), node.nodeKey);
    assert.equal((await retrieve(key, row.id)).state, 'succeeded');
    assert.equal(await pollOne(node, 0), undefined, 'no second copy');
  });

  it('unavailable before the start reached the server: the reconciler finds no workflow and removes the row', async () => {
    const { workspaceId } = await newWorkspace();
    const jobs = await jobsWith({ when: 'before', error: () => grpcError(UNAVAILABLE, 'unavailable') });
    await assert.rejects(
      jobs.submit(memberOf(workspaceId), manifest),
      (e: AppError) => e.code === 'dependency.unavailable',
    );
    const [row] = await rowsOf(workspaceId);
    assert.ok(row && !row.workflow_started, 'an unconfirmed start leaves its row to the reconciler');
    await reconcileWorkspace(workspaceId);
    assert.deepEqual(await rowsOf(workspaceId), []);
    assert.equal(await workflowStatus(row.id), 'NONE');
  });

  it('a definite refusal takes the row back at once', async () => {
    const { workspaceId } = await newWorkspace();
    const jobs = await jobsWith({ when: 'before', error: () => grpcError(INVALID_ARGUMENT, 'invalid argument') });
    await assert.rejects(jobs.submit(memberOf(workspaceId), manifest));
    assert.deepEqual(await rowsOf(workspaceId), []);
  });

  it('a stepwise submit whose row the reconciler removed while the start was slow: the new run is terminated and the submit fails', async () => {
    const { workspaceId } = await newWorkspace();
    let jobId = '';
    const { jobs } = await jobsServiceOn(
      withStart(real, async (...args) => {
        jobId = args[1].workflowId.replace(/^job-/, '');
        // The reconciler's view while the start is in flight: no workflow yet, so the row goes.
        await testEnv().db('jobs').where({ id: jobId, workflow_started: false }).delete();
        return real.workflow.start(...args);
      }),
    );
    // A job ID (as an idempotency key names) takes the stepwise submit, whose row others can see
    // while its run starts; the held one's is seen by no one before its commit.
    await assert.rejects(
      jobs.submit(memberOf(workspaceId), manifest, newId('job')),
      (e: AppError) => e.code === 'dependency.unavailable',
    );
    assert.deepEqual(await rowsOf(workspaceId), []);
    assert.equal(await workflowStatus(jobId), 'TERMINATED', 'no run is left that nobody can see');
  });

  it('the reconciler measures ages on the database clock', async () => {
    const { workspaceId } = await newWorkspace();
    const jobs = await jobsWith({ when: 'before', error: () => grpcError(UNAVAILABLE, 'unavailable') });
    await assert.rejects(jobs.submit(memberOf(workspaceId), manifest));
    const [row] = await rowsOf(workspaceId);
    // Stamped by the database: a row is young to the database however the API's clock is set.
    const { rows } = await testEnv().db.raw(
      'SELECT extract(epoch from now() - created_at) AS age FROM jobs WHERE id = ?',
      [row.id],
    );
    assert.ok(Number(rows[0].age) >= 0 && Number(rows[0].age) < 5);
    await testEnv().service.services!.jobs.reconcile(60_000);
    assert.equal((await rowsOf(workspaceId)).length, 1, 'too young to settle');
    await testEnv()
      .db('jobs')
      .where({ id: row.id })
      .update({ created_at: testEnv().db.raw("now() - interval '2 minutes'") });
    await testEnv().service.services!.jobs.reconcile(60_000);
    assert.deepEqual(await rowsOf(workspaceId), []);
  });

  it('with an Idempotency-Key, a write that fails after the run started keeps the key: a retry after the hold finishes that job, and makes no second', async () => {
    const { key, workspaceId } = await newWorkspace();
    const { db } = testEnv();
    const serviceWith = async (failCreate: boolean) =>
      (
        await jobsServiceOn(real, (transitions) => {
          if (failCreate) transitions.create = () => Promise.reject(new Error('Connection terminated unexpectedly'));
        })
      ).jobs;
    const principal = memberOf(workspaceId);
    const render = (job: { id: string }) => ({ id: job.id });
    await assert.rejects((await serviceWith(true)).submitWithKey(principal, manifest, 'key-after-start', render));
    const [row] = await rowsOf(workspaceId);
    assert.ok(row, 'the row is there: the run started');
    assert.equal(await workflowStatus(row.id), 'RUNNING');
    const kept = await db('idempotency_keys')
      .where({ workspace_id: workspaceId, key: 'key-after-start' })
      .first('job_id');
    assert.equal(kept?.job_id, row.id, 'the key still names that job');
    // The holder is gone (as if its API had crashed): the hold passes.
    await db('idempotency_keys')
      .where({ workspace_id: workspaceId, key: 'key-after-start' })
      .update({ holder_until: db.raw("now() - interval '1 second'") });
    const { body } = await (await serviceWith(false)).submitWithKey(principal, manifest, 'key-after-start', render);
    assert.equal(body.id, row.id, 'the retry answers the job the first attempt made');
    assert.deepEqual(
      (await rowsOf(workspaceId)).map((r) => r.id),
      [row.id],
      'one job',
    );
    assert.equal((await retrieve(key, row.id)).state, 'queued');
  });
});
