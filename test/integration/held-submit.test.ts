import assert from 'node:assert/strict';
import { type Client, Connection } from '@temporalio/client';
import { suiteClient } from '../support/temporal-client';
import { jobsServiceOn, memberOf, withStart } from '../support/jobs-service';
import { ManifestSchema } from '../../src/jobs/schemas';
import { firstRunOf, timingsOf } from '../../src/jobs/run-input';
import { newId } from '../../src/shared/ids';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';
import { waitFor } from '../support/agents';
import { OUR_SESSIONS, testEnv } from '../support/env';
import { newWorkspace, pollOne, registerNode } from '../support/http';

// A workspace's own job without quotas or an idempotency key is submitted in one transaction,
// held open while its run starts (src/jobs/held-submit.ts).
describe('a submit in one transaction', () => {
  let connection: Connection;
  let real: Client;
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    real = await suiteClient(connection);
  });
  after(() => connection.close());

  /** The jobs service over the real Temporal client, with `meanwhile` run once the run has started. */
  const jobsWith = (meanwhile: (workflowId: string) => Promise<void>) =>
    jobsServiceOn(
      withStart(real, async (...args) => {
        const handle = await real.workflow.start(...args);
        await meanwhile(args[1].workflowId);
        return handle;
      }),
    );
  const manifest = ManifestSchema.parse({ type: 'COMMAND', command: 'echo held' });
  const statusOf = (jobId: string) =>
    real.workflow
      .getHandle(workflowIdOf(jobId))
      .describe()
      .then(
        (d) => d.status.name,
        () => 'NONE',
      );

  it('nobody sees the row while its run starts; the row and its audit entry commit in one transaction', async () => {
    const { key, workspaceId } = await newWorkspace();
    const seen: unknown[] = [];
    const { jobs } = await jobsWith(async (id) => {
      seen.push(await testEnv().db('jobs').where({ id }).first('id'));
    });
    const job = await jobs.submit(memberOf(workspaceId), manifest);
    assert.deepEqual(seen, [undefined], 'the row is not there for others before its run exists');
    const { db } = testEnv();
    const row = await db('jobs').where({ id: job.id }).first(db.raw('xmin::text AS xid'), 'workflow_started');
    const entry = await db('audit_log')
      .where({ target_id: job.id, action: 'job.submit' })
      .first(db.raw('xmin::text AS xid'));
    assert.equal(row.workflow_started, true);
    assert.ok(entry, 'the submit is audited');
    assert.equal(entry.xid, row.xid, 'the row and its entry were written by one transaction');
    // Its run, sealed for its workspace before the row existed, takes the job's hand-out.
    const node = await registerNode(key);
    assert.equal((await pollOne(node, 2))?.job_id, job.id);
  });

  it('a commit lost after the run started: the submit fails, no row is left, and the run is ended', async () => {
    const { workspaceId } = await newWorkspace();
    let jobId = '';
    const { jobs } = await jobsWith(async (id) => {
      jobId = id;
      // The held transaction's connection dies (as with its database's restart) before the commit.
      const { rows } = await testEnv().db.raw(
        `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
          WHERE ${OUR_SESSIONS} AND state = 'idle in transaction' AND query LIKE 'INSERT INTO jobs%'`,
      );
      assert.deepEqual(
        rows.map((r: { ended: boolean }) => r.ended),
        [true],
      );
    });
    await assert.rejects(jobs.submit(memberOf(workspaceId), manifest));
    assert.equal(await testEnv().db('jobs').where({ workspace_id: workspaceId }).first('id'), undefined);
    await waitFor('the run nobody can see to be ended', async () => (await statusOf(jobId)) === 'TERMINATED');
    // The pool let the dead connection go: the next submit goes through.
    const { jobs: healthy } = await jobsWith(async () => undefined);
    const next = await healthy.submit(memberOf(workspaceId), manifest);
    assert.equal((await testEnv().db('jobs').where({ id: next.id }).first('state')).state, 'QUEUED');
  });

  it("a run whose submit never committed (its API crashed first) is ended by the reconciler's sweep; one with its row is not", async () => {
    const { workspaceId } = await newWorkspace();
    const { jobs, workflows } = await jobsWith(async () => undefined);
    const from = new Date(Date.now() - 1000);
    const kept = await jobs.submit(memberOf(workspaceId), manifest);
    // What a crash between the start and the commit leaves: the run, and no row.
    const orphan = { ...kept, id: newId('job') };
    await workflows.start(firstRunOf(orphan, timingsOf(testEnv().config)));
    const to = new Date(Date.now() + 1000);
    // Visibility lists a new run a moment after its start.
    await waitFor(
      'the sweep to end the run without a row',
      async () => (await jobs.endRunsWithoutRows(from, to, workspaceId)) === 1,
    );
    assert.equal(await statusOf(orphan.id), 'TERMINATED');
    assert.equal(await statusOf(kept.id), 'RUNNING');
    assert.equal(await jobs.endRunsWithoutRows(from, to, workspaceId), 0, 'nothing left to end');
  });
});
