import assert from 'node:assert/strict';
import { claimsRun, longPollsWaiting } from '../../src/metrics/registry';
import { waitFor } from '../support/agents';
import { newWorkspace, ok, registerNode, submit } from '../support/http';

// A queued job wakes one waiting poll that can take it, not every poll of its workspace
// (src/agents/poll-waiters.ts); a drain wakes its own node's polls only.

const wakeClaims = async () =>
  (await claimsRun.get()).values.filter((v) => v.labels.after === 'wake').reduce((s, v) => s + v.value, 0);
const waitingNow = async () => (await longPollsWaiting.get()).values[0]?.value ?? 0;

describe('long polls woken one at a time', function () {
  this.timeout(60_000);

  it('a job wakes the one poll its selector names, and a zone job one of the zone, each with one claim; a drain wakes its node alone', async () => {
    const { key } = await newWorkspace();
    const nodes = await Promise.all(
      Array.from({ length: 6 }, (_, i) => registerNode(key, { slot: String(i), zone: `z${i % 2}` }, `n${i}`)),
    );
    const before = await waitingNow();
    const answered: Array<{ jobs: Array<{ job_id: string }> } | undefined> = new Array(6);
    const polls = nodes.map((n, i) =>
      ok('/compute/nodes/poll', { nodeId: n.nodeId, waitSeconds: 8 }, n.nodeKey).then((out) => (answered[i] = out)),
    );
    await waitFor('six polls waiting', async () => (await waitingNow()) - before >= 6);
    const claimsBefore = await wakeClaims();

    const job = await submit(key, { selector: { slot: '3' } });
    await waitFor('poll 3 answered', async () => answered[3] !== undefined);
    assert.deepEqual(
      answered[3]!.jobs.map((j) => j.job_id),
      [job.job_id],
    );
    assert.deepEqual(
      Array.from(answered, (a) => a !== undefined),
      [false, false, false, true, false, false],
      'no other poll woke',
    );
    assert.equal((await wakeClaims()) - claimsBefore, 1, 'one claim for the job');

    const zoned = await submit(key, { selector: { zone: 'z0' } });
    await waitFor('a z0 poll answered', async () => [0, 2, 4].some((i) => answered[i] !== undefined));
    const took = [0, 2, 4].filter((i) => answered[i] !== undefined);
    assert.equal(took.length, 1, 'one poll of the zone');
    assert.deepEqual(
      answered[took[0]]!.jobs.map((j) => j.job_id),
      [zoned.job_id],
    );
    assert.equal((await wakeClaims()) - claimsBefore, 2);
    assert.deepEqual(
      [1, 5].map((i) => answered[i]),
      [undefined, undefined],
      'no poll of the other zone woke',
    );

    await ok('/compute/nodes/drain', { nodeId: nodes[5].nodeId }, nodes[5].nodeKey);
    await waitFor("the drained node's poll answered", async () => answered[5] !== undefined);
    assert.deepEqual(answered[5]!.jobs, []);
    assert.equal(answered[1], undefined, "another node's poll still waits");
    assert.equal((await wakeClaims()) - claimsBefore, 2, 'a drain claims nothing');
    await Promise.all(polls);
  });
});
