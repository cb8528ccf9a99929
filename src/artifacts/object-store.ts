import { createHash } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Readable } from 'node:stream';
import * as Minio from 'minio';
import type { SharedSettings } from '../config';
import { AppError, notFound } from '../shared/errors';

/** What a finished upload stored. */
export interface StoredObject {
  size: number;
  sha256: string;
}

export interface ObjectStore {
  /** Creates the bucket when it is missing; safe to call again. */
  ensureBucket(): Promise<void>;
  /** Resolves when storage answers and the bucket exists (readiness). */
  ping(): Promise<void>;
  /**
   * Streams `source` into `key` part by part: one part in memory at a time, sha256 computed on
   * the way. Past `maxBytes` it stops reading, leaves nothing stored and throws 413.
   */
  upload(
    key: string,
    source: AsyncIterable<Buffer>,
    opts: { maxBytes: number; contentType: string },
  ): Promise<StoredObject>;
  /** Bytes [start, end] of the object (both inclusive), or the whole object; 404 when it is gone. */
  read(key: string, range?: { start: number; end: number }): Promise<Readable>;
  remove(key: string): Promise<void>;
  /** Keys under `prefix`, finished objects and unfinished multipart uploads alike (for checks). */
  keys(prefix: string): Promise<{ objects: string[]; unfinished: string[] }>;
}

export class ObjectTooLarge extends AppError {
  constructor(maxBytes: number) {
    super('request.too_large', `An artifact may be at most ${maxBytes} bytes`, { maxBytes });
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'EAI_AGAIN',
  'S3_TIMEOUT',
]);

/** MinIO unreachable, hung, or failing with 5xx after the client's retry: a 503 for our caller. */
export function isStoreUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  if (code && NETWORK_CODES.has(code)) return true;
  if (err instanceof AggregateError) return err.errors.some(isStoreUnavailable);
  return /Request failed after \d+ retries/.test(err.message);
}

/** A missing object (HEAD says NotFound, GET says NoSuchKey). */
const isMissingObject = (err: unknown) => {
  const code = (err as { code?: string } | undefined)?.code;
  return code === 'NotFound' || code === 'NoSuchKey';
};

function unavailable(retryAfterSeconds: number) {
  return new AppError(
    'dependency.unavailable',
    'Object storage is unavailable; retry shortly',
    undefined,
    retryAfterSeconds,
  );
}

export function createObjectStore(
  config: Pick<SharedSettings, 's3' | 'dependencyRetryAfterSeconds'>,
): ObjectStore | undefined {
  const { endpoint, accessKey, secretKey, bucket, region, timeoutMs, partSizeBytes } = config.s3;
  if (!endpoint || !accessKey || !secretKey) return undefined;
  const url = new URL(endpoint);
  const useSSL = url.protocol === 'https:';
  // The client has no timeout of its own: a hung MinIO must fail the request, not hold it.
  const lib = useSSL ? https : http;
  const transport = {
    request(options: http.RequestOptions, callback?: (res: http.IncomingMessage) => void) {
      const req = lib.request(options, callback);
      req.setTimeout(timeoutMs, () =>
        req.destroy(Object.assign(new Error('object storage timed out'), { code: 'S3_TIMEOUT' })),
      );
      return req;
    },
  };
  const client = new Minio.Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey,
    secretKey,
    region, // known region: no location lookup before each first call
    partSize: partSizeBytes,
    transport: transport as unknown as typeof http,
  });
  const retryAfter = config.dependencyRetryAfterSeconds;
  const guard = async <T>(op: () => Promise<T>): Promise<T> => {
    try {
      return await op();
    } catch (err) {
      throw isStoreUnavailable(err) ? unavailable(retryAfter) : err;
    }
  };

  // Once made (or found), the bucket is not checked again; a failed check is retried next time.
  let bucketReady: Promise<void> | undefined;
  const ensureBucket = () =>
    (bucketReady ??= guard(async () => {
      if (await client.bucketExists(bucket)) return;
      await client.makeBucket(bucket, region).catch(async (err) => {
        // Another instance made it first.
        if (!(await client.bucketExists(bucket))) throw err;
      });
    }).catch((err) => {
      bucketReady = undefined;
      throw err;
    }));

  return {
    ensureBucket,

    ping: () =>
      guard(async () => {
        if (!(await client.bucketExists(bucket))) throw new Error(`bucket ${bucket} does not exist`);
      }),

    async upload(key, source, { maxBytes, contentType }) {
      const hash = createHash('sha256');
      let size = 0;
      let uploadId: string | undefined;
      const etags: Array<{ part: number; etag: string }> = [];
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      const flushPart = async () => {
        uploadId ??= await client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType });
        const part = etags.length + 1;
        const body = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        const { etag } = await client.uploadPart(
          { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
          body,
        );
        etags.push({ part, etag });
      };
      try {
        await ensureBucket();
        return await guard(async () => {
          for await (const chunk of source) {
            size += chunk.length;
            if (size > maxBytes) throw new ObjectTooLarge(maxBytes);
            hash.update(chunk);
            pending.push(chunk);
            pendingBytes += chunk.length;
            if (pendingBytes >= partSizeBytes) await flushPart();
          }
          if (uploadId === undefined) {
            // Small enough for one PUT.
            await client.putObject(bucket, key, Buffer.concat(pending, pendingBytes), pendingBytes, {
              'Content-Type': contentType,
            });
          } else {
            if (pendingBytes > 0) await flushPart();
            await client.completeMultipartUpload(bucket, key, uploadId, etags);
          }
          return { size, sha256: hash.digest('hex') };
        });
      } catch (err) {
        // A cut body, a size past the limit, or a storage fault: no part may outlive the upload.
        if (uploadId !== undefined) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
        throw err;
      }
    },

    read: (key, range) =>
      guard(() =>
        range
          ? client.getPartialObject(bucket, key, range.start, range.end - range.start + 1)
          : client.getObject(bucket, key),
      ).catch((err) => {
        // A row whose object was removed behind our back: the artifact is gone, not a fault of ours.
        throw isMissingObject(err) ? notFound('artifact') : err;
      }),

    remove: (key) => guard(() => client.removeObject(bucket, key)),

    keys: (prefix) =>
      guard(async () => {
        const objects: string[] = [];
        for await (const item of client.listObjectsV2(bucket, prefix, true)) if (item.name) objects.push(item.name);
        // MinIO lists unfinished multipart uploads only for an exact object name or the whole
        // bucket, never for a folder prefix: list the bucket's and keep those under the prefix.
        // The client lists each upload's parts as it goes, so an upload that ends meanwhile
        // (anywhere in the bucket) fails the listing with NoSuchUpload: list again.
        for (let attempt = 1; ; attempt++) {
          try {
            const unfinished: string[] = [];
            for await (const item of client.listIncompleteUploads(bucket, '', true) as AsyncIterable<{ key: string }>) {
              if (item.key.startsWith(prefix)) unfinished.push(item.key);
            }
            return { objects, unfinished };
          } catch (err) {
            if ((err as { code?: string }).code !== 'NoSuchUpload' || attempt >= 5) throw err;
          }
        }
      }),
  };
}
