// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import type { ServiceProcess } from '../../src/runtime/service-process';
import { startServiceProcess } from '../../src/runtime/service-process';
import { startMinio } from '../../src/stack/minio';
import { freePort } from '../../src/stack/ports';
import { ensureTool } from '../../src/stack/tools';
import { waitFor } from '../support/agents';
import { memoryOf, spawnApi } from '../support/api-process';
import { presignDownload, presignUpload, send, sessionWithJob, storedKeys } from '../support/artifacts';
import { quietLog, testEnv } from '../support/env';

const MiB = 1024 * 1024;

/** `total` bytes in 1 MiB chunks, never all in memory; `digest()` is their sha256 once sent. */
function generated(total: number) {
  const block = randomBytes(MiB);
  const hash = createHash('sha256');
  async function* chunks() {
    for (let sent = 0, i = 0; sent < total; i++) {
      const chunk = Buffer.from(block.subarray(0, Math.min(MiB, total - sent)));
      chunk.writeUInt32BE(i, 0); // no two chunks alike
      hash.update(chunk);
      sent += chunk.length;
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks()), digest: () => hash.digest('hex') };
}

/** Streams a download through sha256 without keeping it. */
function download(url: string): Promise<{ status: number; size: number; sha256: string; length: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        const hash = createHash('sha256');
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          hash.update(c);
        });
        res.on('end', () =>
          resolve({ status: res.statusCode!, size, sha256: hash.digest('hex'), length: res.headers['content-length'] }),
        );
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

describe('artifact limits and outages', () => {
  it('refuses an upload past the size limit with 413 and leaves no object or unfinished upload behind', async () => {
    // Small limits on an API of its own: two 5 MiB parts fit, the third does not.
    const api = await startServiceProcess({
      config: testEnv().configWith({ ARTIFACT_MAX_BYTES: String(12 * MiB), S3_PART_SIZE_BYTES: String(5 * MiB) }),
      log: quietLog,
      api: true,
      worker: false,
    });
    try {
      const { token, jobId, workspaceId } = await sessionWithJob();
      const on = (url: string) => url.replace(testEnv().url, api.url!);
      const declared = await send('PUT', on((await presignUpload(token, jobId)).url), { body: randomBytes(13 * MiB) });
      assert.equal(declared.status, 413, 'a declared length past the limit');
      assert.equal(declared.json().code, 'request.too_large');

      const chunked = await send('PUT', on((await presignUpload(token, jobId)).url), {
        body: generated(20 * MiB).stream,
      });
      assert.equal(chunked.status, 413, 'a chunked body that grows past the limit');
      assert.equal(chunked.json().code, 'request.too_large');

      // A client that goes away mid-upload, once a part is in storage.
      const cut = on((await presignUpload(token, jobId)).url);
      const req = http.request(cut, { method: 'PUT' });
      req.on('error', () => undefined);
      req.write(randomBytes(11 * MiB));
      await waitFor(
        'a part of the upload in storage',
        async () => (await storedKeys(workspaceId, jobId)).unfinished.length === 1,
      );
      req.destroy();
      await waitFor(
        'the cut upload to be aborted in storage',
        async () => (await storedKeys(workspaceId, jobId)).unfinished.length === 0,
        10_000,
      );
      assert.deepEqual(await storedKeys(workspaceId, jobId), { objects: [], unfinished: [] });
      const fits = await send('PUT', on((await presignUpload(token, jobId)).url), { body: randomBytes(12 * MiB) });
      assert.equal(fits.status, 200, 'exactly the limit is accepted');
    } finally {
      await api.stop();
    }
  });

  it('takes at most ARTIFACT_UPLOADS_MAX uploads at once and answers 429 with Retry-After past it', async () => {
    const api = await startServiceProcess({
      config: testEnv().configWith({ ARTIFACT_UPLOADS_MAX: '1' }),
      log: quietLog,
      api: true,
      worker: false,
    });
    try {
      const { token, jobId, workspaceId } = await sessionWithJob();
      const on = (url: string) => url.replace(testEnv().url, api.url!);
      const slow = new PassThrough();
      const first = send('PUT', on((await presignUpload(token, jobId)).url), { body: slow });
      // Under way, holding the one slot, once storage holds a part of it.
      slow.write(randomBytes(testEnv().config.s3.partSizeBytes + 1024));
      await waitFor(
        'a part of the first upload in storage',
        async () => (await storedKeys(workspaceId, jobId)).unfinished.length === 1,
      );
      const second = await send('PUT', on((await presignUpload(token, jobId)).url), { body: Buffer.from('second') });
      assert.equal(second.status, 429);
      assert.equal(second.json().code, 'rate_limit.exceeded');
      assert.equal(second.headers['retry-after'], '1');
      slow.end(randomBytes(1024));
      assert.equal((await first).status, 200);
      assert.equal(
        (await send('PUT', on((await presignUpload(token, jobId)).url), { body: Buffer.from('third') })).status,
        200,
        'the slot is free again',
      );
    } finally {
      await api.stop();
    }
  });

  it('answers 503 with Retry-After while MinIO is down, and works again once it is back', async () => {
    const { S3_ACCESS_KEY, S3_SECRET_KEY } = testEnv().vars;
    const port = await freePort();
    const minioOpts = {
      binary: await ensureTool('minio', testEnv().config.toolsDir),
      dataDir: path.join(testEnv().dataDir, 'outage-minio'),
      port,
      consolePort: await freePort(),
      accessKey: S3_ACCESS_KEY!,
      secretKey: S3_SECRET_KEY!,
      logFile: path.join(testEnv().dataDir, 'logs', 'outage-minio.log'),
    };
    let minio = await startMinio(minioOpts);
    let api: ServiceProcess | undefined;
    try {
      api = await startServiceProcess({
        config: testEnv().configWith({ S3_ENDPOINT: minio.endpoint }),
        log: quietLog,
        api: true,
        worker: false,
      });
      const on = (url: string) => url.replace(testEnv().url, api!.url!);
      const { token, jobId } = await sessionWithJob();
      const before = await presignUpload(token, jobId);
      assert.equal((await send('PUT', on(before.url), { body: Buffer.from('before') })).status, 200);
      const get = on((await presignDownload(token, jobId, before.id)).url);
      await minio.stop();

      for (const [what, reply] of [
        ['upload', await send('PUT', on((await presignUpload(token, jobId)).url), { body: Buffer.from('during') })],
        ['download', await send('GET', get)],
      ] as const) {
        assert.equal(reply.status, 503, `${what}: ${reply.body.toString()}`);
        assert.equal(reply.json().code, 'dependency.unavailable');
        assert.equal(reply.headers['retry-after'], String(testEnv().config.dependencyRetryAfterSeconds));
      }

      minio = await startMinio(minioOpts);
      assert.equal(
        (await send('PUT', on((await presignUpload(token, jobId)).url), { body: Buffer.from('after') })).status,
        200,
      );
      const back = await send('GET', get);
      assert.equal(back.status, 200);
      assert.equal(back.body.toString(), 'before', 'what was stored before the outage is still there');
    } finally {
      await api?.stop();
      await minio.stop();
    }
  });

  it('streams 1 GiB up and down with the API process staying far below the file size in memory', async function () {
    this.timeout(300_000);
    const port = await freePort();
    const api = await spawnApi(port, {});
    try {
      const base = `http://127.0.0.1:${port}`;
      const on = (url: string) => url.replace(testEnv().url, base);
      const { token, jobId } = await sessionWithJob();
      const idle = memoryOf(api.pid);
      const size = 1024 * MiB;
      const body = generated(size);
      const { id, url } = await presignUpload(token, jobId);
      const put = await send('PUT', on(url), { body: body.stream, headers: { 'Content-Length': size } });
      assert.equal(put.status, 200, put.body.toString());
      const sent = body.digest();
      assert.deepEqual(put.json().payload, { id, size, sha256: sent });

      const got = await download(on((await presignDownload(token, jobId, id)).url));
      assert.equal(got.status, 200);
      assert.equal(got.length, String(size));
      assert.equal(got.size, size);
      assert.equal(got.sha256, sent, 'the same bytes came back');

      const after = memoryOf(api.pid);
      const grewMiB = after.peakMiB - idle.rssMiB;
      process.stderr.write(
        `      API memory: ${idle.rssMiB.toFixed(0)} MiB idle, peak ${after.peakMiB.toFixed(0)} MiB over 1 GiB up and down (+${grewMiB.toFixed(0)} MiB)\n`,
      );
      assert.ok(grewMiB < 128, `the API grew by ${grewMiB.toFixed(0)} MiB moving 1024 MiB`);
    } finally {
      await api.stop();
    }
  });
});
