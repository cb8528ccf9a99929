// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import type { ManagedChild } from '../../src/stack/child';
import { freePort } from '../../src/stack/ports';
import { spawnApi } from '../support/api-process';
import { type RawReply, presignDownload, presignUpload, send, sessionWithJob, storedKeys } from '../support/artifacts';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { heartbeatInBackground, pollOne, registerNode, retrieve, submit } from '../support/http';
import { startTcpProxy } from '../support/tcp-proxy';

// The promises of docs/guides/artifacts.md, each on the real stack: replacing an id, the per-job
// cap, and a MinIO that stops answering.

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const objectKeyOf = async (jobId: string, id: string): Promise<string | undefined> =>
  (await testEnv().db('artifacts').where({ job_id: jobId, id }).first('object_key'))?.object_key;

/** Runs `fn` over `items`, at most `limit` at a time. */
async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

function assertRefused(reply: RawReply, status: number, code: string, what: string) {
  assert.equal(reply.status, status, `${what}: ${reply.status} ${reply.body.toString()}`);
  const body = reply.json();
  assert.equal(body.status, 'ERROR', what);
  assert.equal(body.code, code, what);
  assert.equal(typeof body.message, 'string', what);
}

describe('artifact claims of the artifacts guide', () => {
  it('replaces an artifact uploaded again under the same id: one listed with the new size and sha256, the new bytes served, the old object removed', async () => {
    const { token, jobId, workspaceId } = await sessionWithJob();
    const { id, url } = await presignUpload(token, jobId);
    // The first is a multipart upload (more than a part), the second a single small PUT.
    const first = randomBytes(testEnv().config.s3.partSizeBytes + 1024);
    const put1 = await send('PUT', `${url}&name=first.bin`, { body: first });
    assert.equal(put1.status, 200, put1.body.toString());
    assert.deepEqual(put1.json().payload, { id, size: first.length, sha256: sha256(first) });
    const firstKey = await objectKeyOf(jobId, id);
    assert.deepEqual(await storedKeys(workspaceId, jobId), { objects: [firstKey], unfinished: [] });

    const second = randomBytes(1000);
    const put2 = await send('PUT', `${url}&name=second.txt`, {
      body: second,
      headers: { 'Content-Type': 'application/x-demo' },
    });
    assert.equal(put2.status, 200, put2.body.toString());
    assert.deepEqual(put2.json().payload, { id, size: second.length, sha256: sha256(second) });

    const { artifacts } = await retrieve(token, jobId);
    assert.deepEqual(
      artifacts.map((a: { id: string; name: string; size: number; sha256: string }) => [
        a.id,
        a.name,
        a.size,
        a.sha256,
      ]),
      [[id, 'second.txt', second.length, sha256(second)]],
      'one artifact, described by the second upload',
    );
    const got = await send('GET', (await presignDownload(token, jobId, id)).url);
    assert.equal(got.status, 200);
    assert.ok(got.body.equals(second), 'the new bytes are served');
    assert.equal(got.headers.etag, `"${sha256(second)}"`);
    assert.equal(got.headers['content-length'], String(second.length));
    assert.equal(got.headers['content-type'], 'application/x-demo');

    const secondKey = await objectKeyOf(jobId, id);
    assert.notEqual(secondKey, firstKey, 'the upload went to an object of its own');
    assert.deepEqual(
      await storedKeys(workspaceId, jobId),
      { objects: [secondKey], unfinished: [] },
      'the replaced object is gone from MinIO',
    );
  });

  it('keeps at most 1000 artifacts per job, also when uploads race for the last places; the 1001st is 409 resource.conflict and kept nowhere; a kept id can still be replaced', async function () {
    this.timeout(180_000);
    const session = await login();
    const node = await registerNode(session.token);
    const { job_id: jobId } = await submit(session.token);
    const held = (await pollOne(node)) as unknown as { job_id: string; artifactUploadUrl: string };
    assert.equal(held.job_id, jobId);
    // A live agent: without heartbeats the job would be requeued (AGENT_LOST_AFTER_MS) and its lease lost.
    const beating = heartbeatInBackground(node, [jobId]);
    try {
      // The agent's upload template: no API call (and no rate-limit budget) per upload.
      const put = (id: string, body = Buffer.from(`bytes of ${id}`)) =>
        send('PUT', held.artifactUploadUrl.replace('{id}', id), { body });
      const started = Date.now();
      const first = Array.from({ length: 990 }, (_, i) => `a${i}`);
      await inParallel(first, 8, async (id) => {
        const reply = await put(id);
        assert.equal(reply.status, 200, `${id}: ${reply.body.toString()}`);
      });
      // 20 distinct ids at once for the last 10 places.
      const racing = Array.from({ length: 20 }, (_, i) => `r${i}`);
      const raced = await Promise.all(racing.map((id) => put(id)));
      const kept = racing.filter((_, i) => raced[i].status === 200);
      const refused = racing.filter((_, i) => raced[i].status !== 200);
      for (const id of refused)
        assertRefused(raced[racing.indexOf(id)], 409, 'resource.conflict', `racing upload ${id}`);
      assert.equal(kept.length, 10, `exactly the 10 free places were taken, not ${kept.length}`);

      const extra = await put('one-too-many', randomBytes(4096));
      assertRefused(extra, 409, 'resource.conflict', 'the 1001st distinct id');
      assert.match(extra.json().message, /at most 1000 artifacts/);
      process.stderr.write(`      1000 uploads in ${Date.now() - started} ms\n`);

      const rows = await testEnv().db('artifacts').where({ job_id: jobId }).pluck('id');
      assert.equal(rows.length, 1000);
      const listed = (await retrieve(session.token, jobId)).artifacts.map((a: { id: string }) => a.id);
      assert.deepEqual([...listed].sort(), [...first, ...kept].sort(), 'the job lists the 1000 it keeps');
      const { objects, unfinished } = await storedKeys(session.user.workspaceId, jobId);
      assert.equal(objects.length, 1000, 'one object per kept artifact');
      assert.deepEqual(unfinished, []);
      for (const id of [...refused, 'one-too-many']) {
        assert.ok(
          !objects.some((k) => k.startsWith(`${session.user.workspaceId}/${jobId}/${id}/`)),
          `no object of the refused ${id}`,
        );
      }

      const again = randomBytes(2048);
      const replaced = await put(first[17], again);
      assert.equal(replaced.status, 200, `replacing a kept id at the cap: ${replaced.body.toString()}`);
      const got = await send('GET', (await presignDownload(session.token, jobId, first[17])).url);
      assert.ok(got.body.equals(again), 'the replacement is served');
      assert.equal(
        await testEnv()
          .db('artifacts')
          .where({ job_id: jobId })
          .count({ n: '*' })
          .first()
          .then((r) => Number(r!.n)),
        1000,
      );
    } finally {
      await beating.stop();
    }
  });

  describe('a MinIO that accepts connections and never answers', () => {
    const TIMEOUT_MS = 1500;
    // Far below the 15 s default and any hang: only the configured timeout gets an answer out in time.
    const UPPER_MS = 8000;
    let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
    let api: ManagedChild | undefined;
    let base = '';
    before(async function () {
      this.timeout(90_000);
      const s3 = new URL(testEnv().vars.S3_ENDPOINT!);
      proxy = await startTcpProxy({ host: s3.hostname, port: Number(s3.port) });
      const port = await freePort();
      api = await spawnApi(port, { S3_ENDPOINT: `http://${proxy.address}`, S3_TIMEOUT_MS: String(TIMEOUT_MS) });
      base = `http://127.0.0.1:${port}`;
    });
    after(async () => {
      await api?.stop();
      await proxy?.close();
    });

    /** `request`'s reply and how long it took; past UPPER_MS it fails rather than wait for a hang. */
    async function timed(what: string, request: () => Promise<RawReply>): Promise<{ reply: RawReply; ms: number }> {
      const started = Date.now();
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${UPPER_MS} ms`)), UPPER_MS);
      });
      try {
        const reply = await Promise.race([request(), deadline]);
        return { reply, ms: Date.now() - started };
      } finally {
        clearTimeout(timer);
      }
    }

    it('answers uploads and downloads 503 dependency.unavailable with Retry-After after S3_TIMEOUT_MS, keeps nothing of the upload, and works again once MinIO answers', async function () {
      this.timeout(90_000);
      const on = (url: string) => url.replace(testEnv().url, base);
      const { token, jobId, workspaceId } = await sessionWithJob();
      const before = randomBytes(3000);
      const stored = await presignUpload(token, jobId);
      assert.equal((await send('PUT', on(stored.url), { body: before })).status, 200);
      const download = on((await presignDownload(token, jobId, stored.id)).url);
      assert.equal((await send('GET', download)).status, 200, 'through the proxy while it forwards');

      proxy.blackhole();
      const during = await presignUpload(token, jobId);
      const cases = {
        upload: await timed('upload', () => send('PUT', on(during.url), { body: randomBytes(2000) })),
        download: await timed('download', () => send('GET', download)),
      };
      for (const [what, { reply, ms }] of Object.entries(cases)) {
        assertRefused(reply, 503, 'dependency.unavailable', `${what} on a hung MinIO`);
        assert.equal(reply.headers['retry-after'], String(testEnv().config.dependencyRetryAfterSeconds), what);
        assert.equal(reply.headers['content-disposition'], undefined, `${what}: an error is not offered as a file`);
        assert.ok(
          ms >= TIMEOUT_MS && ms < UPPER_MS,
          `${what} answered after ${ms} ms, not after S3_TIMEOUT_MS (${TIMEOUT_MS} ms)`,
        );
      }

      proxy.resume();
      const back = await send('GET', download);
      assert.equal(back.status, 200, back.body.toString());
      assert.ok(back.body.equals(before), 'what was stored before the hang is served');
      const after = await presignUpload(token, jobId);
      const put = await send('PUT', on(after.url), { body: Buffer.from('after') });
      assert.equal(put.status, 200, put.body.toString());

      const ids = await testEnv().db('artifacts').where({ job_id: jobId }).orderBy('id').pluck('id');
      assert.deepEqual(ids, [stored.id, after.id].sort(), 'the refused upload left no record');
      assert.deepEqual(
        (await retrieve(token, jobId)).artifacts.map((a: { id: string }) => a.id).sort(),
        [stored.id, after.id].sort(),
      );
      const { objects, unfinished } = await storedKeys(workspaceId, jobId);
      assert.deepEqual(
        objects.sort(),
        [await objectKeyOf(jobId, stored.id), await objectKeyOf(jobId, after.id)].sort(),
        'and no object',
      );
      assert.deepEqual(unfinished, []);
    });
  });
});
