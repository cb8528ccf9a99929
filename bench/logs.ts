/**
 * `npm run bench:logs`: log ingest, and what following costs it. The API and the worker run as
 * processes of their own (`npm run api`, `npm run worker`); this process pushes and follows.
 *
 * Each run is one job: a node pushes 200 000 lines (--lines) in batches of 1000, one batch in
 * flight at a time as an agent sends them, then reports the result. With followers, 50 SSE
 * streams (--followers) are open on the job before the first push; each checks that it receives
 * every line exactly once and in order (consecutive ids, and the text of a sample of lines), and
 * the `end` event. Runs alternate without and with followers (--rounds of each, default 2), so
 * drift of the machine hits both alike.
 *
 * Printed per run: ingest (lines / time from the first push to the last push's answer), push
 * latency, how long after the last push the slowest follower had everything, and PostgreSQL's
 * index scans on job_logs per push (the reads: one per push for the feed, not one per follower),
 * and what each line costs: the API's and PostgreSQL's CPU per 1000 lines and the write-ahead log
 * it adds (pg_current_wal_lsn's advance over the pushes).
 * Last line: `logs ingest=<lines/s without followers> ingest_50=<with> ratio_fanout=<with/without>`.
 * Targets: ingest >= 20000 lines/s, ratio_fanout >= 0.7.
 */
import http from 'node:http';
import type { Knex } from 'knex';
import { createApiKey } from '../src/auth/api-keys';
import { apiClient } from './api';
import { type BareStack, option, runBench, spawnService } from './stack';
import { watchLoad } from './load';
import { walPosition, walSince } from './postgres-counters';
import { nowMs, summarize } from './stats';

const BATCH = 1000;
const say = (line = '') => process.stdout.write(`${line}\n`);
const note = (line: string) => process.stderr.write(`${line}\n`);

const lineText = (seq: number) => `line ${seq} of the benchmark's job: some text of a typical length for a build log`;

interface Follower {
  done: Promise<{ lines: number; doneAt: number }>;
}

/** An SSE follower that checks ids are consecutive from 1 and samples the text, without parsing every frame. */
function follow(url: string, key: string, jobId: string, total: number): Follower {
  const ID = Buffer.from('\nid: ');
  const END = Buffer.from('event: end');
  const MARKER_LAST = 'd'.charCodeAt(0);
  const done = new Promise<{ lines: number; doneAt: number }>((resolve, reject) => {
    const req = http.get(`${url}/api/compute/jobs/${jobId}/logs`, { headers: { 'X-API-Key': key } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`follower got ${res.statusCode}`));
      let expect = 1;
      // Past half the job's log budget one `log.truncated` marker takes an id (nothing is dropped here).
      let markers = 0;
      let carry: Buffer = Buffer.alloc(0);
      let ended = false;
      res.on('data', (chunk: Buffer) => {
        const buf = carry.length ? Buffer.concat([carry, chunk]) : chunk;
        let pos = 0;
        for (;;) {
          const at = buf.indexOf(ID, pos);
          if (at < 0) break;
          // Digits read off the bytes: fifty readers parse millions of ids, on the same two cores.
          let seq = 0;
          let eol = at + ID.length;
          for (; eol < buf.length && buf[eol] !== 10; eol++) seq = seq * 10 + buf[eol] - 48;
          if (eol >= buf.length) break; // the id is cut by the chunk: wait for the rest
          if (seq !== expect) {
            req.destroy();
            return reject(new Error(`follower expected line ${expect}, got ${seq}`));
          }
          // `event: log.truncated` ends in 'd', `event: log` in 'g'.
          if (buf[at - 1] === MARKER_LAST) markers++;
          else if (seq % 997 === 0) {
            const dataEnd = buf.indexOf(10, eol + 1);
            if (dataEnd < 0) break;
            const data = JSON.parse(buf.toString('utf8', eol + 1 + 'data: '.length, dataEnd));
            if (data.line !== lineText(seq - markers))
              return reject(new Error(`event ${seq} has the wrong text: ${data.line}`));
          }
          expect++;
          pos = eol;
        }
        if (!ended && buf.indexOf(END, Math.max(0, pos - END.length)) >= 0) ended = true;
        carry = buf.subarray(Math.max(pos, buf.length - 64));
      });
      res.on('end', () => {
        const lines = expect - 1 - markers;
        if (lines !== total) return reject(new Error(`follower got ${lines} lines of ${total}`));
        if (!ended) return reject(new Error('follower saw no end event'));
        resolve({ lines, doneAt: nowMs() });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  done.catch(() => undefined); // awaited by the run; a failure must not end the process first
  return { done };
}

async function jobLogScans(db: Knex): Promise<number> {
  await db.raw('SELECT pg_stat_force_next_flush()').catch(() => undefined);
  const { rows } = await db.raw(
    `SELECT coalesce(idx_scan, 0) + coalesce(seq_scan, 0) AS scans FROM pg_stat_user_tables WHERE relname = 'job_logs'`,
  );
  return Number(rows[0].scans);
}

async function run(stack: BareStack, o: { lines: number; followers: number; rounds: number }): Promise<string> {
  note('starting the API and the worker (npm run api, npm run worker) …');
  const worker = await spawnService(stack, 'worker');
  // PROFILE_DIR=/some/dir writes a V8 CPU profile of the API there.
  const api = await spawnService(
    stack,
    'api',
    {},
    process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [],
  );
  try {
    const client = apiClient(api.url!);
    const node = await client.register(stack.userKey, 'bench-logs');
    // Followers are separate readers, each with a key of its own (a credential may hold 16 streams).
    const readerKeys = await Promise.all(
      Array.from(
        { length: o.followers },
        async (_, i) =>
          (await createApiKey(stack.db, { workspaceId: stack.workspaceId, name: `reader ${i}`, kind: 'user' })).key,
      ),
    );
    const batches = Math.ceil(o.lines / BATCH);

    const once = async (followers: number) => {
      const jobId = await client.submit(stack.userKey);
      const [assigned] = await client.poll(node, 1, 10);
      if (assigned?.job_id !== jobId) throw new Error('the job was not handed to the bench node');
      const streams = readerKeys.slice(0, followers).map((key) => follow(api.url!, key, jobId, o.lines));
      // Every follower is live (past its first read) before the first push.
      await new Promise((r) => setTimeout(r, followers ? 500 : 0));
      const scans0 = await jobLogScans(stack.db);
      const lsn0 = await walPosition(stack.db);
      const load = watchLoad(undefined, {
        [api.pid]: 'API',
        [worker.pid]: 'worker',
        [process.pid]: 'bench (pushes and followers)',
      });
      const pushMs: number[] = [];
      const started = nowMs();
      for (let b = 0; b < batches; b++) {
        const lines = [];
        for (let i = 1; i <= BATCH && b * BATCH + i <= o.lines; i++) {
          const seq = b * BATCH + i;
          lines.push({ seq, stream: 'stdout', line: lineText(seq) });
        }
        const t0 = nowMs();
        await client.call(
          '/compute/nodes/logs',
          { nodeId: node.nodeId, job_id: jobId, leaseId: assigned.leaseId, lines },
          node.nodeKey,
        );
        pushMs.push(nowMs() - t0);
      }
      const pushedAt = nowMs();
      const cpu = load.stop()[0];
      const walBytes = await walSince(stack.db, lsn0);
      const perThousand = load.perJob(o.lines / 1000);
      await client.result(node, assigned);
      const ends = await Promise.all(streams.map((s) => s.done));
      const scans = (await jobLogScans(stack.db)) - scans0;
      return {
        perSecond: (o.lines / (pushedAt - started)) * 1000,
        push: summarize(pushMs),
        lagMs: ends.length ? Math.max(...ends.map((e) => e.doneAt)) - pushedAt : 0,
        scansPerPush: scans / batches,
        cpu,
        walPerLine: walBytes / o.lines,
        cpuPerThousand: Object.entries(perThousand)
          .filter(([group]) => group === 'API' || group === 'postgres')
          .map(([group, ms]) => `${group} ${ms.toFixed(1)} ms`)
          .join(', '),
      };
    };

    note('warm-up …');
    await once(0);
    const without: Array<Awaited<ReturnType<typeof once>>> = [];
    const withFollowers: Array<Awaited<ReturnType<typeof once>>> = [];
    for (let r = 0; r < o.rounds; r++) {
      note(`round ${r + 1}/${o.rounds}: ${o.lines} lines without followers, then with ${o.followers} …`);
      without.push(await once(0));
      withFollowers.push(await once(o.followers));
    }
    const mean = (xs: number[]) => xs.reduce((s, v) => s + v, 0) / xs.length;
    const ingest = mean(without.map((r) => r.perSecond));
    const ingest50 = mean(withFollowers.map((r) => r.perSecond));
    say(`== log ingest: ${o.lines} lines in batches of ${BATCH}, one batch in flight ==`);
    for (const [label, runs] of [
      ['no followers', without],
      [`${o.followers} followers`, withFollowers],
    ] as const) {
      say(
        `${label}: ${runs.map((r) => r.perSecond.toFixed(0)).join(' / ')} lines/s; job_logs reads per push ${runs.map((r) => r.scansPerPush.toFixed(2)).join(' / ')}`,
      );
      say(`  push p50 / p99: ${runs.map((r) => `${r.push.p50.toFixed(1)} / ${r.push.p99.toFixed(1)} ms`).join(', ')}`);
      for (const r of runs) say(`  ${r.cpu}`);
      say(
        `  CPU per 1000 lines: ${runs.map((r) => r.cpuPerThousand).join(' / ')}; WAL per line ${runs.map((r) => r.walPerLine.toFixed(0)).join(' / ')} bytes`,
      );
      if (runs[0].lagMs)
        say(
          `  the slowest follower had every line ${runs.map((r) => r.lagMs.toFixed(0)).join(' / ')} ms after the last push was answered`,
        );
    }
    return `logs ingest=${ingest.toFixed(0)} lines/s ingest_50=${ingest50.toFixed(0)} ratio_fanout=${(ingest50 / ingest).toFixed(2)}`;
  } finally {
    await api.stop();
    await worker.stop();
  }
}

runBench(
  (stack) =>
    run(stack, { lines: option('lines', 200_000), followers: option('followers', 50), rounds: option('rounds', 2) }),
  { inProcess: false },
);
