// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { testEnv } from '../support/env';
import { heldJob, post, sleep } from '../support/http';

// Log pushes take turns on their API instance, weighed by their lines (LOG_LINES_IN_FLIGHT_MAX):
// here 8 lines, so two pushes of 5 cannot be stored at once. The first is held mid-store by a
// lock this test takes on its job's row; the second, for another job whose row is free, waits for
// its turn instead of being stored beside it.
describe('log pushes in their turn', () => {
  const apiWith = apisPerTest();

  it('a push past the lines in flight waits for the one being stored, then is stored', async function () {
    this.timeout(30_000);
    const api = await apiWith({ LOG_LINES_IN_FLIGHT_MAX: '8' });
    const [a, b] = [await heldJob(), await heldJob()];
    const lines = (text: string) =>
      Array.from({ length: 5 }, (_, i) => ({ seq: i + 1, stream: 'stdout', line: `${text} ${i + 1}` }));
    const push = (j: typeof a, text: string) =>
      post(
        '/compute/nodes/logs',
        { nodeId: j.node.nodeId, job_id: j.job.job_id, leaseId: j.job.leaseId, lines: lines(text) },
        j.node.nodeKey,
        api.url!,
      );
    const stored = async (jobId: string) =>
      Number((await testEnv().db('job_logs').where({ job_id: jobId }).count('* as n'))[0].n);

    const lock = await testEnv().db.transaction();
    let first: ReturnType<typeof push> | undefined;
    try {
      await lock.raw('SELECT 1 FROM jobs WHERE id = ? FOR UPDATE', [a.job.job_id]);
      first = push(a, 'first');
      await sleep(300); // the first is in its turn, waiting on the row
      let secondDone = false;
      const second = push(b, 'second').then((r) => ((secondDone = true), r));
      await sleep(700);
      assert.equal(secondDone, false, 'the second push waits while the first holds the lines in flight');
      assert.equal(await stored(b.job.job_id), 0);
      await lock.commit();
      const [r1, r2] = await Promise.all([first, second]);
      assert.deepEqual([r1.status, r2.status], [200, 200], JSON.stringify([r1.body, r2.body]));
      assert.deepEqual([await stored(a.job.job_id), await stored(b.job.job_id)], [5, 5]);
    } finally {
      if (!lock.isCompleted()) await lock.rollback();
      await first?.catch(() => undefined);
    }
  });
});
