// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { agentPool } from '../support/agents';
import { heldJob, inState, newWorkspace, ok, submit, waitForJob, storedLines } from '../support/http';

describe('hostile bytes in a job’s output', () => {
  const start = agentPool();

  it('a NUL byte printed by a job is stored as U+FFFD and the job finishes at once', async () => {
    const { key } = await newWorkspace();
    await start({ key });
    // Before: PostgreSQL refused the line, the push was 500, the agent retried it forever and
    // held the result back until the job timed out.
    const job = await submit(key, { command: "printf 'a\\000b\\n'; echo after", timeoutSeconds: 60 });
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed', 'timed-out'), 20_000);
    assert.equal(done.state, 'succeeded');
    assert.deepEqual(await storedLines(job.job_id), ['a\uFFFDb', 'after']);
  });

  it('the API stores NUL and lone surrogates a client pushes as U+FFFD instead of failing', async () => {
    const { node, job } = await heldJob();
    const lines = [
      { seq: 1, stream: 'stdout', line: 'x\u0000y' },
      { seq: 2, stream: 'stderr', line: 'half \uD800 pair' },
      { seq: 3, stream: 'stdout', line: '\uDC00' },
    ];
    const out = await ok(
      '/compute/nodes/logs',
      { nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines },
      node.nodeKey,
    );
    assert.equal(out.accepted, 3);
    assert.deepEqual(await storedLines(job.job_id), ['x\uFFFDy', 'half \uFFFD pair', '\uFFFD']);
  });
});
