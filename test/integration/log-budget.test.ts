// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createLogsService, type LogsService, type PushedLine } from '../../src/logs/service';
import { sseFrames } from '../../src/shared/sse-frames';
import { testEnv } from '../support/env';
import { heldJob, ok, resultOf } from '../support/http';

// The suite's budget: LOG_LIMIT_BYTES 64 KiB (test/support/env.ts), 128 B per line overhead.
const OVERHEAD = 128;
const HALF = (64 * 1024) / 2;

const stdout = (seq: number, line: string): PushedLine => ({ seq, stream: 'stdout', line });
const bytes = (line: string) => Buffer.byteLength(line, 'utf8');
/** A service of the test's own pushes at once: its turns are the instance's business, not the budget's. */
const untimed = { push: <T>(_job: string, _lines: number, fn: () => Promise<T>) => fn() };

/** A held job with its pushes both over HTTP and straight into a logs service of its own. */
async function runningJob(service?: LogsService) {
  const { key, workspaceId, node, job } = await heldJob();
  // The node as the service reads it: its workspace, and which pool it serves.
  const asker = { id: node.nodeId, workspace_id: workspaceId, pool: 'self' };
  const target = { jobId: job.job_id, leaseId: job.leaseId };
  return {
    key,
    jobId: job.job_id,
    pushHttp: (lines: PushedLine[]) =>
      ok('/compute/nodes/logs', { nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines }, node.nodeKey),
    push: (lines: PushedLine[]) => service!.push(asker, { ...target, lines }),
    finish: () => ok('/compute/nodes/result', resultOf(node, job, 0), node.nodeKey),
  };
}

async function stored(jobId: string) {
  const db = testEnv().db;
  const rows: Array<{
    seq: number;
    kind: string;
    line: string | null;
    bytes: number;
    data: { droppedLines: number; droppedBytes: number } | null;
  }> = await db('job_logs').where({ job_id: jobId }).orderBy('seq').select('seq', 'kind', 'line', 'bytes', 'data');
  const markerAt = rows.findIndex((r) => r.kind === 'truncated');
  // The log state src/logs keeps, in the names it reads it by.
  const jobRow = await db('job_log_state')
    .where({ job_id: jobId })
    .first(
      'next_seq as log_next_seq',
      'tail_start_seq as log_tail_start_seq',
      'head_bytes as log_head_bytes',
      'tail_bytes as log_tail_bytes',
    );
  return {
    rows,
    marker: markerAt >= 0 ? rows[markerAt] : undefined,
    head: markerAt >= 0 ? rows.slice(0, markerAt) : rows,
    tail: markerAt >= 0 ? rows.slice(markerAt + 1) : [],
    job: jobRow as {
      log_next_seq: number;
      log_tail_start_seq: number | null;
      log_head_bytes: number;
      log_tail_bytes: number;
    },
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('job log budget', () => {
  it('charges each line a row overhead, so empty lines cannot grow a log past its budget', async () => {
    const j = await runningJob();
    const total = 20_000;
    for (let from = 1; from <= total; from += 5000) {
      await j.pushHttp(range(from, from + 4999).map((seq) => stdout(seq, '')));
    }
    const s = await stored(j.jobId);
    assert.ok(s.rows.length <= (64 * 1024) / OVERHEAD + 1, `${s.rows.length} rows stored for a 64 KiB budget`);
    assert.equal(s.head.length, HALF / OVERHEAD, 'the head takes half the budget');
    assert.equal(s.tail.length, HALF / OVERHEAD, 'the tail takes the other half');
    assert.deepEqual(s.marker?.data, { droppedLines: total - s.head.length - s.tail.length, droppedBytes: 0 });
    await j.finish();
  });

  it('caps the lines a job keeps; the tail holds the newest and retried pushes of dropped lines stay dropped', async () => {
    const service = createLogsService({
      db: testEnv().db,
      config: testEnv().configWith({ LOG_LIMIT_LINES: '100' }),
      turns: untimed,
    });
    const j = await runningJob(service);
    const line = (n: number) => stdout(n, `line ${n}`);
    for (let from = 1; from <= 600; from += 20) await j.push(range(from, from + 19).map(line));
    let s = await stored(j.jobId);
    assert.equal(s.rows.length, 101, 'at most 100 lines and the marker');
    assert.deepEqual(
      s.head.map((r) => r.line),
      range(1, 50).map((n) => `line ${n}`),
    );
    assert.deepEqual(
      s.tail.map((r) => r.line),
      range(551, 600).map((n) => `line ${n}`),
    );
    assert.equal(s.marker!.data!.droppedLines, 500);

    assert.deepEqual(await j.push(range(21, 40).map(line)), { accepted: 0, duplicates: 20 }, 'a retried head push');
    assert.deepEqual(
      await j.push(range(201, 220).map(line)),
      { accepted: 0, duplicates: 20 },
      'a retried push whose lines were trimmed',
    );
    assert.equal((await stored(j.jobId)).marker!.data!.droppedLines, 500, 'retries are not counted again');

    // One push larger than the tail: its newest 50 lines are the tail, the rest never stored.
    assert.deepEqual(await j.push(range(601, 680).map(line)), { accepted: 80, duplicates: 0 });
    s = await stored(j.jobId);
    assert.equal(s.rows.length, 101);
    assert.deepEqual(
      s.tail.map((r) => r.line),
      range(631, 680).map((n) => `line ${n}`),
    );
    assert.equal(s.marker!.data!.droppedLines, 580);
    assert.equal(s.job.log_tail_start_seq, s.tail[0].seq);

    const paged: number[] = [];
    for (let after = 0, more = true; more;) {
      const page = await service.read(j.jobId, after, { maxRows: 7 });
      paged.push(...page.events.map((e) => e.seq));
      after = page.events.at(-1)?.seq ?? after;
      more = page.full;
    }
    assert.deepEqual(
      paged,
      s.rows.map((r) => r.seq),
      'pages go from the head over the dropped seqs to the tail',
    );
    await j.finish();
  });

  it('keeps exactly the newest lines that fit as the tail, contiguous, its start seq on the job row', async () => {
    const j = await runningJob();
    let state = 7;
    const random = (n: number) => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
    const pushed: string[] = [];
    for (let batch = 0; batch < 40; batch++) {
      const lines = Array.from({ length: 1 + random(30) }, () => `${pushed.length + 1} ${'é'.repeat(random(600))}`).map(
        (text) => {
          pushed.push(text);
          return stdout(pushed.length, text);
        },
      );
      await j.pushHttp(lines);
    }
    const cost = (text: string) => bytes(text) + OVERHEAD;
    let headCount = 0;
    for (let used = 0; headCount < pushed.length && used + cost(pushed[headCount]) <= HALF; headCount++)
      used += cost(pushed[headCount]);
    let tailFrom = pushed.length;
    for (let used = 0; tailFrom > headCount && used + cost(pushed[tailFrom - 1]) <= HALF; tailFrom--)
      used += cost(pushed[tailFrom - 1]);

    const s = await stored(j.jobId);
    assert.deepEqual(
      s.head.map((r) => r.line),
      pushed.slice(0, headCount),
    );
    assert.deepEqual(
      s.tail.map((r) => r.line),
      pushed.slice(tailFrom),
      'the newest lines that fit',
    );
    assert.deepEqual(
      s.head.map((r) => r.seq),
      range(1, headCount),
    );
    assert.equal(s.marker!.seq, headCount + 1);
    assert.deepEqual(
      s.tail.map((r) => r.seq),
      range(s.tail[0].seq, s.job.log_next_seq - 1),
      'no gap in the tail',
    );
    assert.equal(s.job.log_tail_start_seq, s.tail[0].seq);
    assert.equal(
      s.job.log_head_bytes,
      s.head.reduce((n, r) => n + r.bytes, 0),
    );
    assert.equal(
      s.job.log_tail_bytes,
      s.tail.reduce((n, r) => n + r.bytes, 0),
    );
    const dropped = pushed.slice(headCount, tailFrom);
    assert.deepEqual(s.marker!.data, {
      droppedLines: dropped.length,
      droppedBytes: dropped.reduce((n, t) => n + bytes(t), 0),
    });
    await j.finish();
  });

  it('pages reads by bytes, and an SSE replay sends every stored line once across pages', async () => {
    const service = createLogsService({
      db: testEnv().db,
      config: testEnv().configWith({ LOG_LIMIT_BYTES: String(16 * 1024 * 1024) }),
      turns: untimed,
    });
    const j = await runningJob(service);
    const text = (n: number) => `${n} ${'x'.repeat(60_000)}`;
    for (let from = 1; from <= 40; from += 10) await j.push(range(from, from + 9).map((n) => stdout(n, text(n))));

    const first = await service.read(j.jobId, 0);
    const firstBytes = first.events.reduce((n, e) => n + (e.kind === 'line' ? bytes(e.line) : 0), 0);
    assert.ok(first.full, 'a page cut by bytes says so');
    assert.ok(
      firstBytes <= 1024 * 1024 && firstBytes > 1024 * 1024 - 60_010,
      `first page: ${first.events.length} lines, ${firstBytes} bytes`,
    );
    assert.equal((await service.read(j.jobId, 0, { maxBytes: 10 })).events.length, 1, 'at least one row, however long');
    const capped = await service.read(j.jobId, 0, { maxRows: 5 });
    assert.deepEqual([capped.events.length, capped.full], [5, true]);

    const seen: number[] = [];
    for (let after = 0, page = { full: true }; page.full;) {
      const next = await service.read(j.jobId, after, { maxBytes: 200_000 });
      for (const e of next.events) seen.push(e.seq);
      after = next.events.at(-1)?.seq ?? after;
      page = next;
    }
    assert.deepEqual(seen, range(1, 40));

    // The API reads with its own (default) page: about 17 of these lines a page.
    const res = await fetch(`${testEnv().url}/api/compute/jobs/${j.jobId}/logs?follow=false`, {
      headers: { 'X-API-Key': j.key },
    });
    assert.equal(res.status, 200);
    const lines: string[] = [];
    for await (const frame of sseFrames(res.body)) if (frame.event === 'log') lines.push(JSON.parse(frame.data).line);
    assert.deepEqual(lines, range(1, 40).map(text));
    await j.finish();
  });
});
