import http from 'node:http';
import type { Readable } from 'node:stream';
import { createObjectStore } from '../../src/artifacts/object-store';
import type { SharedSettings } from '../../src/config';
import { login } from './auth';
import { testEnv } from './env';
import { ok } from './http';

export interface RawReply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body as JSON when it is the envelope. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json(): any;
}

/**
 * One plain HTTP request with no credential, the way curl uses a signed URL. `body` may be a
 * Buffer or a stream (sent chunked unless a Content-Length header is given).
 */
export function send(
  method: string,
  url: string,
  opts: { body?: Buffer | Readable; headers?: Record<string, string | number> } = {},
): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(url), { method, headers: opts.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ status: res.statusCode!, headers: res.headers, body, json: () => JSON.parse(body.toString('utf8')) });
      });
    });
    // An early refusal (413, 429, 503) still reaches us: the server drains the rest of the body.
    req.on('error', reject);
    if (!opts.body) req.end();
    else if (Buffer.isBuffer(opts.body)) req.end(opts.body);
    else opts.body.pipe(req);
  });
}

/** A logged-in user (JWT) with one job in their personal workspace. */
export async function sessionWithJob(manifest: Record<string, unknown> = {}) {
  const session = await login();
  const job = await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'echo hi', ...manifest }, session.token);
  return { session, token: session.token, jobId: job.job_id as string, workspaceId: session.user.workspaceId };
}

export async function presignUpload(token: string, jobId: string, extra: Record<string, unknown> = {}) {
  return (await ok('/compute/jobs/artifacts/presign-upload', { job_id: jobId, ...extra }, token)) as {
    id: string;
    url: string;
    expiresAt: string;
  };
}

export async function presignDownload(token: string, jobId: string, id: string, extra: Record<string, unknown> = {}) {
  return (await ok('/compute/jobs/artifacts/presign-download', { job_id: jobId, id, ...extra }, token)) as {
    url: string;
    expiresAt: string;
  };
}

/** Uploads `bytes` through a fresh presigned URL and returns its id and a download URL. */
export async function storedArtifact(token: string, jobId: string, bytes: Buffer, name = 'data.bin') {
  const { id, url } = await presignUpload(token, jobId);
  const put = await send('PUT', `${url}&name=${encodeURIComponent(name)}`, {
    body: bytes,
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  if (put.status !== 200) throw new Error(`upload -> ${put.status} ${put.body.toString()}`);
  return { id, download: (await presignDownload(token, jobId, id)).url };
}

/** What object storage holds under a job, read straight from MinIO. */
export async function storedKeys(
  workspaceId: string,
  jobId: string,
  config: Pick<SharedSettings, 's3' | 'dependencyRetryAfterSeconds'> = testEnv().config,
) {
  return createObjectStore(config)!.keys(`${workspaceId}/${jobId}/`);
}

/** A URL with one query parameter or the path changed. */
export function tamper(url: string, change: { param?: string; value?: string; path?: (p: string) => string }): string {
  const u = new URL(url);
  if (change.param) u.searchParams.set(change.param, change.value ?? '');
  if (change.path) u.pathname = change.path(u.pathname);
  return u.toString();
}
