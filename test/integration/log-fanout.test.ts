import assert from 'node:assert/strict';
import http from 'node:http';
import { createApiKey } from '../../src/auth/api-keys';
import { apisPerTest } from '../support/api-process';
import { sseFrames } from '../../src/shared/sse-frames';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import { heartbeatInBackground, heldJob, ok, resultOf } from '../support/http';
import { readLogStream } from '../support/sse';

const lineOf = (n: number, width = 0) => `line ${n}${width ? ` ${'x'.repeat(width)}` : ''}`;

/** One push of `count` lines from agent seq `from`, as the node holding the job sends it. */
const pushLines = (h: Awaited<ReturnType<typeof heldJob>>, from: number, count: number, baseUrl: string, width = 0) =>
  ok(
    '/compute/nodes/logs',
    {
      nodeId: h.node.nodeId,
      job_id: h.job.job_id,
      leaseId: h.job.leaseId,
      lines: Array.from({ length: count }, (_, i) => ({
        seq: from + i,
        stream: 'stdout',
        line: lineOf(from + i, width),
      })),
    },
    h.node.nodeKey,
    baseUrl,
  );

describe('log fan-out: one read per job, whatever the number of followers', () => {
  const apiWith = apisPerTest();

  it('hands every push to 50 followers from at most one read, each line once and in order, with no listener warning', async function () {
    this.timeout(60_000);
    // Two instances, with a log budget that keeps every line (the suite's is 64 KiB).
    const budget = { LOG_LIMIT_BYTES: String(64 * 1024 * 1024) };
    const api = await apiWith(budget);
    const other = await apiWith(budget);
    const h = await heldJob();
    // Separate readers: one key each (a credential holds at most 16 streams).
    const keys = await Promise.all(
      Array.from(
        { length: 50 },
        async (_, i) =>
          (await createApiKey(testEnv().db, { workspaceId: h.workspaceId, name: `reader ${i}`, kind: 'user' })).key,
      ),
    );
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const followers = keys.map((key) => readLogStream(key, h.job.job_id, { baseUrl: api.url, timeoutMs: 50_000 }));
      // Each join asks the feed to read what landed meanwhile: counting starts once those reads are done.
      await waitFor('50 followers on the feed, its reads done', () => {
        const stats = api.services!.feeds.stats();
        return stats.followers === 50 && stats.reading === 0;
      });
      // As a live agent does: the test's agent-loss window is 2.5 s.
      const beats = heartbeatInBackground(h.node, [h.job.job_id]);
      const reads: string[] = [];
      const onQuery = (q: { sql: string }) => /row_number\(\) OVER/.test(q.sql) && reads.push(q.sql);
      api.db.on('query', onQuery);
      // Half the pushes through this instance (handed over as stored), half through another
      // (announced by NOTIFY, read once).
      for (let p = 0; p < 20; p++) await pushLines(h, p * 100 + 1, 100, p % 2 ? api.url! : other.url!);
      await beats.stop();
      await ok('/compute/nodes/result', resultOf(h.node, h.job, 0), h.node.nodeKey);
      const streams = await Promise.all(followers);
      api.db.off('query', onQuery);

      const expected = Array.from({ length: 2000 }, (_, i) => lineOf(i + 1));
      for (const [i, s] of streams.entries()) {
        const lines = s.events.filter((e) => e.event === 'log');
        assert.deepEqual(
          lines.map((e) => Number(e.id)),
          expected.map((_, n) => n + 1),
          `follower ${i}: every id once, in order`,
        );
        assert.deepEqual(
          lines.map((e) => e.data.line),
          expected,
          `follower ${i}: the lines`,
        );
        assert.equal(s.events.at(-1)?.event, 'end');
      }
      // At most one read per push (one through this instance is read back only when its NOTIFY
      // overtakes the hand-over) and one for the job's end.
      assert.ok(
        reads.length <= 21,
        `${reads.length} reads of job_logs for 20 pushes, the end and 50 followers (one per follower per push would be 1000)`,
      );
      assert.equal(api.services!.feeds.stats().feeds, 0, 'the feed is gone with its followers');
    } finally {
      process.off('warning', onWarning);
    }
    assert.deepEqual(
      warnings.map((w) => `${w.name}: ${w.message}`),
      [],
    );
  });

  it('cuts a follower that stops reading once its buffer is full, while the others and the pushes go on; it resumes after its last whole event', async function () {
    this.timeout(90_000);
    // A big log budget: the lines must all be stored, and each push must stay under 1 MiB.
    const api = await apiWith({
      SSE_BUFFER_BYTES: String(2 * 1024 * 1024),
      LOG_LIMIT_BYTES: String(512 * 1024 * 1024),
    });
    const h = await heldJob();
    const steady = readLogStream(h.key, h.job.job_id, { baseUrl: api.url, timeoutMs: 80_000 });
    // The slow one reads nothing: its socket's buffers fill, then what waits for it on our side.
    let slowResponse: http.IncomingMessage | undefined;
    const slowRequest = http.get(
      `${api.url}/api/compute/jobs/${h.job.job_id}/logs`,
      { headers: { 'X-API-Key': h.key } },
      (res) => {
        res.pause();
        slowResponse = res;
      },
    );
    slowRequest.on('error', () => undefined);
    await waitFor('both followers on the feed', () => api.services!.feeds.stats().followers === 2 && slowResponse);

    const beats = heartbeatInBackground(h.node, [h.job.job_id]);
    const PUSHES = 60;
    const PER_PUSH = 500;
    const pushMs: number[] = [];
    for (let p = 0; p < PUSHES; p++) {
      const started = Date.now();
      await pushLines(h, p * PER_PUSH + 1, PER_PUSH, api.url!, 1000);
      pushMs.push(Date.now() - started);
    }
    await waitFor('the slow follower to be cut', () => api.services!.feeds.stats().followers === 1, 10_000);
    assert.ok(
      Math.max(...pushMs) < 5_000,
      `pushes went on while a follower stalled (slowest ${Math.max(...pushMs)} ms)`,
    );
    await beats.stop();
    await ok('/compute/nodes/result', resultOf(h.node, h.job, 0), h.node.nodeKey);
    const total = PUSHES * PER_PUSH;
    const got = (await steady).events.filter((e) => e.event === 'log');
    assert.equal(got.length, total, 'the steady follower got every line');

    // What reached the slow client before the cut, up to its last whole event...
    const received: number[] = [];
    slowResponse!.resume();
    try {
      for await (const frame of sseFrames(slowResponse as unknown as ReadableStream<Uint8Array>))
        if (frame.event === 'log') received.push(Number(frame.id));
    } catch {
      // The connection was cut: what was whole before it counts.
    }
    assert.ok(received.length < total, `the slow follower was cut short (${received.length} of ${total})`);
    // ... then the rest, resumed with Last-Event-ID.
    const resumed = await readLogStream(h.key, h.job.job_id, {
      baseUrl: api.url,
      lastEventId: String(received.at(-1) ?? 0),
      timeoutMs: 60_000,
    });
    const all = [...received, ...resumed.events.filter((e) => e.event === 'log').map((e) => Number(e.id))];
    assert.deepEqual(
      all,
      Array.from({ length: total }, (_, i) => i + 1),
      'every line once, in order, across the cut',
    );
  });
});
