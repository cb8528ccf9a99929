import { artifactBytes } from '../../metrics/registry';
import path from 'node:path';
import type { IncomingMessage } from 'node:http';
import type Router from '@koa/router';
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Context } from 'koa';
import rangeParser from 'range-parser';
import { z } from 'zod';
import type { ArtifactsService } from '../../artifacts/service';
import type { UrlSigner } from '../../artifacts/signed-urls';
import { ARTIFACT_DOWNLOAD_PREFIX, ARTIFACT_UPLOAD_PREFIX } from '../../artifacts/url-paths';
import { AppError, MethodNotAllowed } from '../../shared/errors';
import { newRouter } from '../router';
import { ErrorEnvelope } from './operations';

// The two self-authorizing artifact routes: no header, the signed URL is the credential. They sit
// before the JSON body parser, since an upload's body is the artifact's raw bytes.

const UPLOAD = `${ARTIFACT_UPLOAD_PREFIX}:jobId/:id`;
const DOWNLOAD = `${ARTIFACT_DOWNLOAD_PREFIX}:jobId/:id`;

/**
 * The request body as chunks; leaving early does not destroy the socket, so a 413 still gets out.
 * An upload may take as long as it needs, but not sit idle: a client that stops sending for
 * `idleMs` is cut off, so a trickle cannot hold an upload slot.
 */
async function* bodyOf(req: IncomingMessage, idleMs: number): AsyncGenerator<Buffer> {
  let idle = false;
  // Armed only while we wait for the client: the time storage takes with a part is not its idling.
  const arm = () =>
    setTimeout(() => {
      idle = true;
      req.destroy();
    }, idleMs);
  let timer = arm();
  try {
    for await (const chunk of req.iterator({ destroyOnReturn: false })) {
      clearTimeout(timer);
      yield chunk as Buffer;
      timer = arm();
    }
  } catch {
    throw new AppError(
      'request.invalid',
      idle ? `The upload sent nothing for ${idleMs} ms and was cut off` : 'The upload was cut off before its end',
    );
  } finally {
    clearTimeout(timer);
  }
}

const contentDisposition = (name: string) => {
  const file = path.posix.basename(name) || 'artifact';
  return `attachment; filename="${file.replace(/[^\x20-\x7e]|["\\]/g, '_')}"; filename*=UTF-8''${encodeURIComponent(file)}`;
};

export function artifactRoutes(
  deps: { artifacts: ArtifactsService; signer: UrlSigner; idleTimeoutMs: number },
  registry: OpenAPIRegistry,
): Router {
  const { artifacts, signer, idleTimeoutMs } = deps;
  const router = newRouter();
  const verify = (ctx: Context) => signer.verify({ method: ctx.method, path: ctx.path, query: ctx.query });

  // An early answer (403, 409, 413) closes the connection after a short drain (applyRequestDeadlines).
  router.put(UPLOAD, async (ctx) => {
    const { lease } = verify(ctx);
    const length = ctx.get('Content-Length');
    const name = typeof ctx.query.name === 'string' ? ctx.query.name : undefined;
    ctx.body = await artifacts.receive(
      {
        jobId: ctx.params.jobId,
        id: ctx.params.id,
        lease,
        name,
        contentType: ctx.get('Content-Type') || undefined,
        contentLength: length ? Number(length) : undefined,
      },
      bodyOf(ctx.req, idleTimeoutMs),
    );
  });

  router.get(DOWNLOAD, async (ctx) => {
    verify(ctx);
    const { artifact, read } = await artifacts.open(ctx.params.jobId, ctx.params.id);
    const etag = `"${artifact.sha256}"`;
    const validators = () => {
      ctx.set('ETag', etag);
      ctx.set('Last-Modified', new Date(artifact.createdAt).toUTCString());
      ctx.set('Accept-Ranges', 'bytes');
    };
    ctx.state.raw = true;
    if (ctx.get('If-None-Match') === etag) {
      validators();
      ctx.status = 304;
      return;
    }
    let range: { start: number; end: number } | undefined;
    const header = ctx.get('Range');
    const ifRange = ctx.get('If-Range');
    if (header && (!ifRange || ifRange === etag)) {
      const parsed = rangeParser(artifact.size, header, { combine: true });
      if (parsed === -1) {
        ctx.status = 416;
        ctx.set('Content-Range', `bytes */${artifact.size}`);
        ctx.body = {
          status: 'ERROR',
          code: 'request.invalid',
          message: `Range ${header} is outside the artifact's ${artifact.size} bytes`,
        };
        return;
      }
      // Malformed or several ranges: the whole artifact, as RFC 9110 allows.
      if (parsed !== -2 && parsed.length === 1) range = parsed[0];
    }
    // Opened before any header is set, so a storage error is answered as a plain error. HEAD gets
    // the headers only; no object read is opened for it.
    const stream = ctx.method === 'HEAD' ? undefined : await read(range);
    validators();
    ctx.set('Content-Disposition', contentDisposition(artifact.name));
    ctx.type = artifact.contentType;
    ctx.status = range ? 206 : 200;
    if (range) ctx.set('Content-Range', `bytes ${range.start}-${range.end}/${artifact.size}`);
    if (stream) {
      stream.on('data', (chunk: Buffer) => artifactBytes.inc({ direction: 'download' }, chunk.length));
      ctx.body = stream;
    }
    ctx.length = range ? range.end - range.start + 1 : artifact.size;
  });

  // Any other method on these paths: not one they take, whatever the URL is signed for.
  router.all(UPLOAD, (ctx) => {
    throw new MethodNotAllowed(ctx.method, ctx.path, ['PUT']);
  });
  router.all(DOWNLOAD, (ctx) => {
    throw new MethodNotAllowed(ctx.method, ctx.path, ['GET', 'HEAD']);
  });

  const signedQuery = z.object({
    expires: z.string().meta({ description: 'Expiry, epoch seconds (covered by sig)' }),
    sig: z.string().meta({ description: 'base64url HMAC-SHA256 over method, path, expires and lease' }),
    lease: z.string().optional().meta({ description: "An agent's lease (upload templates only; covered by sig)" }),
  });
  const errors = {
    403: {
      description: 'auth.signature_invalid (path, method, expiry, lease or sig changed) or auth.url_expired',
      content: { 'application/json': { schema: ErrorEnvelope } },
    },
    404: { description: 'resource.not_found', content: { 'application/json': { schema: ErrorEnvelope } } },
    503: {
      description: 'dependency.unavailable: object storage cannot be reached (Retry-After)',
      content: { 'application/json': { schema: ErrorEnvelope } },
    },
  };
  const params = z.object({ jobId: z.string(), id: z.string().meta({ description: '1-128 of A-Z a-z 0-9 . _ -' }) });
  registry.registerPath({
    method: 'put',
    path: '/api/compute/artifacts/upload/{jobId}/{id}',
    summary:
      'Upload an artifact through a signed URL (no header needed): from a poll (agent; `{id}` filled by the agent, lease checked) or presign-upload. ' +
      'The body is streamed to object storage; sha256 is computed on the way. Uploading the same id again replaces it.',
    tags: ['artifacts'],
    security: [],
    request: {
      params,
      query: signedQuery.extend({
        name: z.string().optional().meta({ description: 'Display name (e.g. the relative path); defaults to the id' }),
      }),
      body: { content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } } },
    },
    responses: {
      200: {
        description: 'Stored',
        content: {
          'application/json': {
            schema: z.object({
              status: z.literal('OK'),
              payload: z.object({ id: z.string(), size: z.number().int(), sha256: z.string() }),
            }),
          },
        },
      },
      ...errors,
      409: {
        description: 'job.not_assigned: the lease no longer holds the job; nothing is kept',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      413: {
        description: 'request.too_large: past ARTIFACT_MAX_BYTES; nothing is kept',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      429: {
        description:
          'rate_limit.exceeded: ARTIFACT_UPLOADS_MAX uploads already in progress on this instance (Retry-After)',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/compute/artifacts/download/{jobId}/{id}',
    summary:
      'Download an artifact through a signed URL (no header needed). Streams with Content-Length, ETag (the sha256) and Range (one range; 206).',
    tags: ['artifacts'],
    security: [],
    request: { params, query: signedQuery.omit({ lease: true }) },
    responses: {
      200: {
        description: 'The bytes',
        content: { 'application/octet-stream': { schema: z.string().meta({ format: 'binary' }) } },
      },
      206: { description: 'The requested range, with Content-Range' },
      304: { description: 'If-None-Match matched the ETag' },
      416: {
        description: 'The range lies outside the artifact; Content-Range: bytes */size',
        content: { 'application/json': { schema: ErrorEnvelope } },
      },
      ...errors,
    },
  });
  return router;
}
