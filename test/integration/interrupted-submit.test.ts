import assert from 'node:assert/strict';
import { startServiceProcess } from '../../src/runtime/service-process';
import { waitFor } from '../support/agents';
import { quietLog, reconcileWorkspace, testEnv } from '../support/env';
import { newWorkspace, pollOne, registerNode, retrieve } from '../support/http';
import { memberOf } from '../support/jobs-service';
import { ManifestSchema } from '../../src/jobs/schemas';

describe('a crash of the API between the steps of a submit', () => {
  it('neither loses an acknowledged job nor runs an unacknowledged one', async () => {
    const { key, workspaceId } = await newWorkspace();
    const jobs = testEnv().service.services!.jobs;
    const principal = memberOf(workspaceId);
    const manifest = ManifestSchema.parse({ type: 'COMMAND', command: 'echo interrupted' });

    // Crash after the row, before the workflow: never acknowledged, so it must never run.
    const orphan = await jobs.insertUnstarted(principal, manifest);
    // Crash after the workflow started, before the row was marked: the client may have its ID.
    const acknowledged = await jobs.submit(principal, manifest);
    await testEnv().db('jobs').where({ id: acknowledged.id }).update({ workflow_started: false });

    const node = await registerNode(key);
    assert.equal(await pollOne(node, 0), undefined, 'unsettled rows are not handed out');
    const settled = await reconcileWorkspace(workspaceId);
    assert.ok(settled.removed >= 1 && settled.started >= 1);
    assert.equal(await testEnv().db('jobs').where({ id: orphan.id }).first(), undefined);
    const job = (await pollOne(node, 2))!;
    assert.equal(job.job_id, acknowledged.id);
    assert.equal((await retrieve(key, acknowledged.id)).state, 'running');
    assert.equal(await pollOne(node, 0), undefined, 'nothing else to run: no duplicate');
    // The job was acknowledged once, by the reconciler: its submit is recorded once, the orphan's never.
    const submits = await testEnv()
      .db('audit_log')
      .where({ workspace_id: workspaceId, action: 'job.submit' })
      .select('target_id', 'actor_id');
    assert.deepEqual(submits, [{ target_id: acknowledged.id, actor_id: 'key_test' }]);
  });

  it('is settled by the periodic reconciler of a running API, on its own', async () => {
    const { workspaceId } = await newWorkspace();
    const jobs = testEnv().service.services!.jobs;
    const principal = memberOf(workspaceId);
    const manifest = ManifestSchema.parse({ type: 'COMMAND', command: 'echo settled' });
    const orphan = await jobs.insertUnstarted(principal, manifest);
    const acknowledged = await jobs.submit(principal, manifest);
    const db = testEnv().db;
    await db('jobs').where({ id: acknowledged.id }).update({ workflow_started: false });
    // Older than any submit still under way, by the database's clock.
    await db('jobs')
      .whereIn('id', [orphan.id, acknowledged.id])
      .update({ created_at: db.raw("now() - interval '1 minute'") });
    const api = await startServiceProcess({
      config: testEnv().configWith({ RECONCILE_INTERVAL_MS: '200' }),
      log: quietLog,
      api: true,
      worker: false,
    });
    try {
      await waitFor('the reconciler to settle both rows', async () => {
        const rows = await db('jobs').where({ workspace_id: workspaceId }).select('id', 'workflow_started');
        return rows.length === 1 && rows[0].id === acknowledged.id && rows[0].workflow_started;
      });
    } finally {
      await api.stop();
    }
  });
});
