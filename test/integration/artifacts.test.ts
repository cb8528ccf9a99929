// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { waitFor } from '../support/agents';
import { createHash, randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { createObjectStore } from '../../src/artifacts/object-store';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import {
  presignDownload,
  presignUpload,
  send,
  sessionWithJob,
  storedArtifact,
  storedKeys,
  tamper,
} from '../support/artifacts';
import { newWorkspace, ok, pollOne, post, registerNode, retrieve, sleep } from '../support/http';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function assertRefused(
  reply: { status: number; json(): { code: string } },
  status: number,
  code: string,
  what: string,
) {
  assert.equal(reply.status, status, `${what}: ${reply.status}`);
  assert.equal(reply.json().code, code, what);
}

describe('artifacts through signed URLs', () => {
  it('stores an upload with its size and sha256, lists it on the job, and serves it back with its headers', async () => {
    const { token, jobId } = await sessionWithJob();
    const bytes = randomBytes(300_000);
    const { id, url } = await presignUpload(token, jobId);
    const put = await send('PUT', `${url}&name=${encodeURIComponent('dist/app.bin')}`, {
      body: bytes,
      headers: { 'Content-Type': 'application/x-demo' },
    });
    assert.equal(put.status, 200, put.body.toString());
    assert.deepEqual(put.json().payload, { id, size: bytes.length, sha256: sha256(bytes) });

    const job = await retrieve(token, jobId);
    assert.equal(job.artifacts.length, 1);
    assert.deepEqual(
      { ...job.artifacts[0], createdAt: undefined },
      { id, name: 'dist/app.bin', size: bytes.length, sha256: sha256(bytes), createdAt: undefined },
    );
    assert.match(job.artifacts[0].createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

    const { url: download } = await presignDownload(token, jobId, id);
    const got = await send('GET', download);
    assert.equal(got.status, 200);
    assert.ok(got.body.equals(bytes), 'the same bytes come back');
    assert.equal(got.headers['content-length'], String(bytes.length));
    assert.equal(got.headers.etag, `"${sha256(bytes)}"`);
    assert.equal(got.headers['content-type'], 'application/x-demo');
    assert.equal(got.headers['accept-ranges'], 'bytes');
    assert.match(got.headers['content-disposition']!, /filename="app.bin"/);
    const head = await send('HEAD', download);
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(bytes.length));
    assert.equal((await send('GET', download, { headers: { 'If-None-Match': `"${sha256(bytes)}"` } })).status, 304);
  });

  it('serves ranges: the first bytes, the middle, a suffix, and 416 for an impossible one', async () => {
    const { token, jobId } = await sessionWithJob();
    const bytes = randomBytes(10_000);
    const { download } = await storedArtifact(token, jobId, bytes);
    const range = async (header: string) => send('GET', download, { headers: { Range: header } });

    const first = await range('bytes=0-99');
    assert.equal(first.status, 206);
    assert.ok(first.body.equals(bytes.subarray(0, 100)));
    assert.equal(first.headers['content-range'], 'bytes 0-99/10000');
    assert.equal(first.headers['content-length'], '100');

    const middle = await range('bytes=4000-5999');
    assert.equal(middle.status, 206);
    assert.ok(middle.body.equals(bytes.subarray(4000, 6000)));
    assert.equal(middle.headers['content-range'], 'bytes 4000-5999/10000');

    const suffix = await range('bytes=-500');
    assert.equal(suffix.status, 206);
    assert.ok(suffix.body.equals(bytes.subarray(9500)));
    assert.equal(suffix.headers['content-range'], 'bytes 9500-9999/10000');

    // A cut download resumes from where it stopped.
    const resumed = await range('bytes=7000-');
    assert.ok(Buffer.concat([bytes.subarray(0, 7000), resumed.body]).equals(bytes));

    const impossible = await range('bytes=10000-20000');
    assert.equal(impossible.status, 416);
    assert.equal(impossible.headers['content-range'], 'bytes */10000');
  });

  it('refuses a changed path, method, expiry or signature with 403 auth.signature_invalid, and an old URL with auth.url_expired', async () => {
    const { token, jobId } = await sessionWithJob();
    const other = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo other' }, token);
    const bytes = randomBytes(1000);
    const { id, download } = await storedArtifact(token, jobId, bytes);
    const { url: upload } = await presignUpload(token, jobId);

    const sig = new URL(download).searchParams.get('sig')!;
    // Another first character, never the same one (a fixed one would match 1 signature in 64).
    const changedSig = `${sig.startsWith('A') ? 'B' : 'A'}${sig.slice(1)}`;
    const cases: Array<[string, string, string]> = [
      ['another job in the path', 'GET', tamper(download, { path: (p) => p.replace(jobId, other.job_id) })],
      ['another id in the path', 'GET', tamper(download, { path: (p) => p.replace(id, `${id}x`) })],
      [
        'a later expiry',
        'GET',
        tamper(download, {
          param: 'expires',
          value: String(Number(new URL(download).searchParams.get('expires')) + 3600),
        }),
      ],
      ['a changed signature', 'GET', tamper(download, { param: 'sig', value: changedSig })],
      ['no signature', 'GET', tamper(download, { param: 'sig', value: '' })],
      ['a lease added', 'GET', tamper(download, { param: 'lease', value: 'lease_x' })],
    ];
    for (const [what, method, url] of cases) {
      assertRefused(
        await send(method, url, method === 'PUT' ? { body: Buffer.from('x') } : {}),
        403,
        'auth.signature_invalid',
        what,
      );
    }
    // A method the path does not take is 405 with Allow, signed or not.
    for (const [method, url, allow] of [
      ['PUT', download, 'GET, HEAD'],
      ['DELETE', download, 'GET, HEAD'],
      ['GET', upload, 'PUT'],
      ['TRACE', upload, 'PUT'],
    ]) {
      const reply = await send(method, url, method === 'PUT' ? { body: Buffer.from('x') } : {});
      assertRefused(reply, 405, 'request.invalid', `${method} on ${url}`);
      assert.equal(reply.headers.allow, allow);
    }
    assert.equal((await send('GET', download)).status, 200, 'the untouched URL still works');

    const short = await presignDownload(token, jobId, id, { ttlSeconds: 1 });
    await sleep(2100);
    assertRefused(await send('GET', short.url), 403, 'auth.url_expired', 'an expired URL');
  });

  it("scopes an agent's upload template to its job and lease: a changed lease is 403, a stale one 409", async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi', artifacts: { paths: ['*.txt'] } }, key);
    const held = (await pollOne(node)) as unknown as {
      job_id: string;
      leaseId: string;
      artifactUploadUrl: string;
      artifacts: { paths: string[] };
    };
    assert.deepEqual(held.artifacts, { paths: ['*.txt'] });
    assert.match(held.artifactUploadUrl, new RegExp(`/api/compute/artifacts/upload/${held.job_id}/\\{id\\}\\?`));
    const urlFor = (id: string) => held.artifactUploadUrl.replace('{id}', id);

    const put = await send('PUT', `${urlFor('report-1')}&name=report.txt`, { body: Buffer.from('hello\n') });
    assert.equal(put.status, 200, put.body.toString());
    assertRefused(
      await send('PUT', tamper(urlFor('report-2'), { param: 'lease', value: 'lease_someone_else' }), {
        body: Buffer.from('x'),
      }),
      403,
      'auth.signature_invalid',
      'a changed lease',
    );
    assertRefused(
      await send(
        'PUT',
        tamper(urlFor('report-2'), { path: (p) => p.replace(held.job_id, 'job_00000000000000000000000000') }),
        { body: Buffer.from('x') },
      ),
      403,
      'auth.signature_invalid',
      'another job',
    );
    assertRefused(
      await send('PUT', urlFor('-dash-first'), { body: Buffer.from('x') }),
      400,
      'request.invalid',
      'an id outside the alphabet',
    );

    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 5 },
      node.nodeKey,
    );
    assertRefused(
      await send('PUT', urlFor('late'), { body: Buffer.from('late') }),
      409,
      'job.not_assigned',
      'a lease that no longer holds the job',
    );
    const job = await retrieve(key, held.job_id);
    assert.deepEqual(
      job.artifacts.map((a: { name: string }) => a.name),
      ['report.txt'],
      'only the live upload is listed',
    );
  });

  it('keeps nothing of an upload during which the job moved on to a result', async () => {
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key);
    await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi', artifacts: { paths: ['*'] } }, key);
    const held = (await pollOne(node)) as unknown as { job_id: string; leaseId: string; artifactUploadUrl: string };
    const body = new PassThrough();
    const upload = send('PUT', held.artifactUploadUrl.replace('{id}', 'slow'), { body });
    // More than a part: the upload is under way (its lease checked at the start) once storage holds one.
    body.write(randomBytes(testEnv().config.s3.partSizeBytes + 1024));
    await waitFor(
      'a part of the upload in storage',
      async () => (await storedKeys(workspaceId, held.job_id)).unfinished.length === 1,
    );
    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 5 },
      node.nodeKey,
    );
    body.end(randomBytes(64 * 1024));
    assertRefused(await upload, 409, 'job.not_assigned', 'an upload that outlived its lease');
    assert.deepEqual((await retrieve(key, held.job_id)).artifacts, []);
    assert.deepEqual(await storedKeys(workspaceId, held.job_id), { objects: [], unfinished: [] });
  });

  it('answers 404 for an artifact whose object was removed from storage behind its back', async () => {
    const { token, jobId, workspaceId } = await sessionWithJob();
    const { id, download } = await storedArtifact(token, jobId, Buffer.from('soon gone'));
    const { object_key: objectKey } = await testEnv().db('artifacts').where({ job_id: jobId, id }).first('object_key');
    assert.ok(objectKey.startsWith(`${workspaceId}/${jobId}/${id}/`));
    await createObjectStore(testEnv().config)!.remove(objectKey);
    const gone = await send('GET', download);
    assertRefused(gone, 404, 'resource.not_found', 'a missing object');
    assert.equal(gone.headers['content-disposition'], undefined, 'an error is not offered as a file');
  });

  it('presigns for a session only, within its workspace, for at most 24 h', async () => {
    const { token, jobId, workspaceId } = await sessionWithJob();
    const { id } = await storedArtifact(token, jobId, Buffer.from('x'));
    const { key } = await newWorkspace();
    const stranger = await login();

    const withKey = await post('/compute/jobs/artifacts/presign-upload', { job_id: jobId }, key);
    assert.equal(withKey.status, 403);
    assert.equal(withKey.body.code, 'auth.forbidden');
    for (const path of ['presign-upload', 'presign-download']) {
      const foreign = await post(
        `/compute/jobs/artifacts/${path}`,
        { job_id: jobId, ...(path === 'presign-download' && { id }) },
        stranger.token,
      );
      assert.equal(foreign.status, 404, `${path} of another workspace's job`);
      assert.equal(foreign.body.code, 'resource.not_found');
      const tooLong = await post(
        `/compute/jobs/artifacts/${path}`,
        { job_id: jobId, ttlSeconds: 86_401, ...(path === 'presign-download' && { id }) },
        token,
      );
      assert.equal(tooLong.status, 400, `${path} past 24 h`);
      assert.equal(tooLong.body.code, 'request.invalid');
    }
    const missing = await post('/compute/jobs/artifacts/presign-download', { job_id: jobId, id: 'art_missing' }, token);
    assert.equal(missing.status, 404);
    const day = await presignUpload(token, jobId, { ttlSeconds: 86_400 });
    const ttl = Date.parse(day.expiresAt) - Date.now();
    assert.ok(ttl > 86_390_000 && ttl <= 86_400_000, `a 24 h URL lasts 24 h (${ttl} ms)`);
    const { objects } = await storedKeys(workspaceId, jobId);
    assert.equal(objects.length, 1);
    assert.match(
      objects[0],
      new RegExp(`^${workspaceId}/${jobId}/${id}/art_[0-9a-z]{26}$`),
      'stored under workspace/job/id/upload',
    );
  });
});
