// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import pg from 'pg';
import { NOTIFY } from '../../src/db/channels';
import { ok, heldJob, resultOf } from '../support/http';
import { readLogStream } from '../support/sse';
import { testEnv } from '../support/env';
import { waitFor } from '../support/agents';

async function runningJob() {
  const { key, node, sub, job } = await heldJob();
  const push = (lines: Array<{ seq: number; line: string }>) =>
    ok(
      '/compute/nodes/logs',
      {
        nodeId: node.nodeId,
        job_id: job.job_id,
        leaseId: job.leaseId,
        lines: lines.map((l) => ({ ...l, stream: 'stdout' })),
      },
      node.nodeKey,
    );
  const finish = () => ok('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey);
  return { key, jobId: sub.job_id as string, push, finish };
}

/** The payloads NOTIFYed on `channel` from now on, heard on a LISTEN connection of the test's own. */
async function listenTo(channel: string) {
  const listener = new pg.Client({ connectionString: testEnv().config.databaseUrl! });
  await listener.connect();
  const notified: string[] = [];
  listener.on('notification', (n) => n.channel === channel && notified.push(n.payload ?? ''));
  await listener.query(`LISTEN ${channel}`);
  return { notified, end: () => listener.end() };
}

/** A running job whose log a client follows, once the follower has marked it. */
async function followedJob() {
  const j = await runningJob();
  const follower = readLogStream(j.key, j.jobId);
  await waitFor(
    'the follower to mark the job',
    async () => (await testEnv().db('jobs').where({ id: j.jobId }).first('log_followed')).log_followed,
  );
  return { ...j, follower };
}

const lines = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ seq: from + i, line: `line ${from + i}` }));

describe('job logs', () => {
  it('stores pushes idempotently on seq', async () => {
    const j = await runningJob();
    const first = await j.push(lines(1, 3));
    const again = await j.push(lines(2, 4));
    assert.deepEqual([first.accepted, again.accepted, again.duplicates], [3, 1, 2]);
    await j.finish();
    const { events } = await readLogStream(j.key, j.jobId);
    assert.deepEqual(
      events.filter((e) => e.event === 'log').map((e) => e.data.line),
      ['line 1', 'line 2', 'line 3', 'line 4'],
    );
  });

  it('replays, follows live, and resumes after Last-Event-ID with no line lost or doubled', async () => {
    const j = await runningJob();
    await j.push(lines(1, 5));
    const seen: string[] = [];
    const follower = readLogStream(j.key, j.jobId, { onEvent: (e) => e.event === 'log' && seen.push(e.data.line) });
    const partial = await readLogStream(j.key, j.jobId, { stopAfter: 3 });
    // Live, not read back from storage at the end: each push reaches the follower while the job runs.
    await waitFor('the follower to have line 5', () => seen.includes('line 5'));
    await j.push(lines(6, 10));
    await waitFor('line 10 to arrive live', () => seen.includes('line 10'));
    await j.push(lines(11, 12));
    await waitFor('line 12 to arrive live', () => seen.includes('line 12'));
    assert.equal(
      (await testEnv().db('jobs').where({ id: j.jobId }).first('state')).state,
      'RUNNING',
      'all of it before the job finished',
    );
    await j.finish();
    const live = await follower;
    const got = live.events.filter((e) => e.event === 'log').map((e) => e.data.line);
    assert.deepEqual(
      got,
      lines(1, 12).map((l) => l.line),
    );
    assert.equal(live.events.at(-1)!.event, 'end');
    assert.deepEqual(live.events.at(-1)!.data, { state: 'succeeded', exitCode: 0 });
    const resumed = await readLogStream(j.key, j.jobId, { lastEventId: partial.events.at(-1)!.id });
    const rest = resumed.events.filter((e) => e.event === 'log').map((e) => e.data.line);
    assert.deepEqual(
      [...partial.events.map((e) => e.data.line), ...rest],
      lines(1, 12).map((l) => l.line),
    );
  });

  it('notifies a job’s end only when someone followed its log: a NOTIFY wakes every listener of the database', async () => {
    const { notified, end } = await listenTo(NOTIFY.jobState);
    try {
      const unfollowed = await runningJob();
      await unfollowed.finish();
      const followed = await followedJob();
      await followed.finish();
      assert.equal((await followed.follower).events.at(-1)!.event, 'end');
      // Delivered in commit order: the unfollowed job's end, had it notified, would be here first.
      await waitFor('the followed job’s end to notify', () => notified.includes(followed.jobId));
      // Other lanes' followed jobs may notify too: only this test's two are looked at.
      assert.deepEqual(
        notified.filter((id) => id === unfollowed.jobId || id === followed.jobId),
        [followed.jobId],
      );
    } finally {
      await end();
    }
  });

  it('notifies a job’s pushed lines only when someone followed its log', async () => {
    const { notified, end } = await listenTo(NOTIFY.jobLogs);
    try {
      const unfollowed = await runningJob();
      await unfollowed.push(lines(1, 3));
      const followed = await followedJob();
      await followed.push(lines(1, 2));
      // Delivered in commit order: the unfollowed job's push, had it notified, would be here first.
      await waitFor('the followed job’s push to notify', () => notified.includes(`${followed.jobId} 2`));
      assert.deepEqual(
        notified.filter((p) => p.startsWith(`${unfollowed.jobId} `) || p.startsWith(`${followed.jobId} `)),
        [`${followed.jobId} 2`],
      );
      await followed.finish();
      const got = (await followed.follower).events.filter((e) => e.event === 'log').map((e) => e.data.line);
      assert.deepEqual(got, ['line 1', 'line 2']);
      await unfollowed.finish();
    } finally {
      await end();
    }
  });

  it('sends keep-alive comments while a job is quiet', async () => {
    const j = await runningJob();
    const stream = readLogStream(j.key, j.jobId, { timeoutMs: 1500 });
    const { comments } = await stream;
    assert.ok(comments.filter((c) => c === 'keep-alive').length >= 2, `comments: ${comments.join(',')}`);
    await j.finish();
  });

  it('keeps the head and the tail past the per-job limit and says what was dropped', async () => {
    // Test limit: 64 KiB, so 32 KiB of head and 32 KiB of tail, each line costing its bytes + 128.
    const j = await runningJob();
    const big = 'x'.repeat(1000);
    for (let batch = 0; batch < 4; batch++) {
      await j.push(
        Array.from({ length: 50 }, (_, i) => ({ seq: batch * 50 + i + 1, line: `${batch * 50 + i + 1} ${big}` })),
      );
    }
    await j.finish();
    const { events } = await readLogStream(j.key, j.jobId);
    const kept = events.filter((e) => e.event === 'log').map((e) => Number(String(e.data.line).split(' ')[0]));
    const marker = events.find((e) => e.event === 'log.truncated');
    assert.ok(marker, 'a log.truncated event');
    assert.equal(kept[0], 1, 'head starts at the first line');
    assert.equal(kept.at(-1), 200, 'tail ends at the last line');
    const markerIndex = events.indexOf(marker);
    const head = events.slice(0, markerIndex).filter((e) => e.event === 'log').length;
    assert.ok(head >= 27 && head <= 29, `head of ~28 lines, got ${head}`);
    assert.equal(marker.data.droppedLines + kept.length, 200, 'kept + dropped = all');
    assert.ok(marker.data.droppedBytes > 100_000);
    const totalKept = events.filter((e) => e.event === 'log').reduce((n, e) => n + Buffer.byteLength(e.data.line), 0);
    assert.ok(totalKept <= 64 * 1024, `kept ${totalKept} bytes`);
  });
});
