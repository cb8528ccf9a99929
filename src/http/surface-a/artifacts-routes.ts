import type Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type SurfaceAMount, operationGroup } from './operations';
import { requestOrigin } from './request-origin';

const Ttl = z
  .number()
  .int()
  .min(1)
  .max(86_400)
  .optional()
  .meta({ description: 'Seconds the URL stays valid: 1..86400 (24 h), default ARTIFACT_URL_TTL_SECONDS (3600)' });
const PresignUploadRequest = z.strictObject({ job_id: z.string(), ttlSeconds: Ttl });
const PresignDownloadRequest = z.strictObject({ job_id: z.string(), id: z.string(), ttlSeconds: Ttl });
const Presigned = z.object({ url: z.string(), method: z.enum(['PUT', 'GET']), expiresAt: z.string() });

/** Presigned artifact URLs for the browser flow: a session token only, never an API key. */
export function artifactPresignRoutes(services: Services, at: SurfaceAMount): Router {
  const { router, mount } = operationGroup(at, 'jobs');
  mount({
    path: '/artifacts/presign-upload',
    action: 'artifact.write',
    summary:
      'A URL to PUT one new artifact of a job (JWT only; API keys get 403). The id is chosen here; add `&name=` to set its display name.',
    auth: 'jwt',
    body: PresignUploadRequest,
    response: Presigned.extend({ id: z.string() }),
    handle: (ctx, body) =>
      services.artifacts.presignUpload(principalOf(ctx), requestOrigin(ctx), {
        jobId: body.job_id,
        ttlSeconds: body.ttlSeconds,
      }),
  });
  mount({
    path: '/artifacts/presign-download',
    action: 'artifact.read',
    summary: "A URL to GET one of a job's artifacts, resumable with Range (JWT only; API keys get 403)",
    auth: 'jwt',
    body: PresignDownloadRequest,
    response: Presigned,
    handle: (ctx, body) =>
      services.artifacts.presignDownload(principalOf(ctx), requestOrigin(ctx), {
        jobId: body.job_id,
        id: body.id,
        ttlSeconds: body.ttlSeconds,
      }),
  });
  return router;
}
