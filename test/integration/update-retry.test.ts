import { suiteWorkflows } from '../support/jobs-service';
import assert from 'node:assert/strict';
import { Client, Connection, ServiceError, type WorkflowHandle } from '@temporalio/client';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';
import { AppError } from '../../src/shared/errors';
import { testEnv } from '../support/env';
import { newWorkspace, submit } from '../support/http';
import { suiteClient } from '../support/temporal-client';

// An Update the server aborts because it failed the workflow task carrying it (WorkflowNotReady,
// "unexpected workflow task failure", seen under load) is sent again under the same update ID
// until the call's budget is nearly spent (src/temporal/job-workflow-client.ts): the run takes it
// once, the caller gets its answer.

/**
 * A gRPC failure as the Temporal client reports it (rethrowUpdateGrpcError in its workflow-client):
 * a ServiceError saying only "Workflow Update failed", the server's words in its cause. (A stand-in
 * with the server's words in its own message once hid that the retry never matched the real one.)
 */
const GRPC_NAMES: Record<number, string> = { 9: 'FAILED_PRECONDITION', 13: 'INTERNAL' };
const grpcError = (code: number, what: string) =>
  new ServiceError('Workflow Update failed', {
    cause: Object.assign(new Error(`${code} ${GRPC_NAMES[code] ?? 'UNKNOWN'}: ${what}`), { code, details: what }),
  });
const abortedWithTask = () =>
  grpcError(9, 'Unable to perform workflow execution update due to unexpected workflow task failure.');

type Fault = { when: 'before' | 'after'; times: number; error: () => Error };

describe('an Update aborted with its workflow task', () => {
  let connection: Connection;
  let real: Client;
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    real = await suiteClient(connection);
  });
  after(() => connection.close());

  /** The job workflow client over the real Temporal client, its Updates failing `times` times; the update IDs sent, in order. */
  function workflowsWith(fault: Fault) {
    const sent: string[] = [];
    let left = fault.times;
    const getHandle = (...args: Parameters<Client['workflow']['getHandle']>) => {
      const handle = real.workflow.getHandle(...args);
      return Object.create(handle, {
        executeUpdate: {
          value: async (...u: Parameters<WorkflowHandle['executeUpdate']>) => {
            sent.push(u[1]?.updateId ?? 'none');
            if (left > 0 && fault.when === 'before') throw (left--, fault.error());
            const out = await handle.executeUpdate(...u);
            if (left > 0) throw (left--, fault.error());
            return out;
          },
        },
      });
    };
    const client = Object.create(real, {
      workflow: { value: Object.create(real.workflow, { getHandle: { value: getHandle } }) },
    }) as Client;
    const workflows = suiteWorkflows(client);
    return { workflows, sent };
  }

  /** How many times the run accepted a cancel Update. */
  const cancelsAccepted = async (jobId: string) => {
    const history = await real.workflow.getHandle(workflowIdOf(jobId)).fetchHistory();
    return (history.events ?? []).filter(
      (e) => e.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name === 'cancel',
    ).length;
  };

  it('sends it again under the same update ID; the run takes it once', async () => {
    const { key } = await newWorkspace();
    const job = await submit(key);
    const { workflows, sent } = workflowsWith({ when: 'before', times: 2, error: abortedWithTask });
    const t = await workflows.cancel(job.job_id);
    assert.equal(t.snapshot.state, 'CANCELLED');
    assert.equal(sent.length, 3);
    assert.equal(new Set(sent).size, 1, 'one update ID');
    assert.notEqual(sent[0], 'none');
    assert.equal(await cancelsAccepted(job.job_id), 1);
  });

  it('one the run had taken before the abort was reported is answered, not applied again', async () => {
    const { key } = await newWorkspace();
    const job = await submit(key);
    const { workflows, sent } = workflowsWith({ when: 'after', times: 1, error: abortedWithTask });
    const t = await workflows.cancel(job.job_id);
    assert.equal(t.snapshot.state, 'CANCELLED');
    assert.deepEqual(sent, [sent[0], sent[0]]);
    assert.equal(await cancelsAccepted(job.job_id), 1);
  });

  it("gives up once the call's 10 s budget is nearly spent, and retries no other refusal", async function () {
    this.timeout(30_000);
    const { key } = await newWorkspace();
    const job = await submit(key);
    const always = workflowsWith({ when: 'before', times: 1000, error: abortedWithTask });
    const started = Date.now();
    await assert.rejects(always.workflows.cancel(job.job_id), (e: AppError) => e.code === 'dependency.unavailable');
    const took = Date.now() - started;
    assert.ok(took >= 7_000 && took < 10_000, `gave up after ${took} ms`);
    // 50, 100, 200, 400, 800 ms, then each second.
    assert.ok(always.sent.length >= 10 && always.sent.length <= 14, `${always.sent.length} attempts`);
    const other = workflowsWith({ when: 'before', times: 1000, error: () => grpcError(9, 'some other precondition') });
    await assert.rejects(other.workflows.cancel(job.job_id), (e: AppError) => e.code === 'dependency.unavailable');
    assert.equal(other.sent.length, 1);
    assert.equal(await cancelsAccepted(job.job_id), 0, 'nothing reached the run');
  });
});
