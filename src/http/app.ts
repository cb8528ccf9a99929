import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Knex } from 'knex';
import Koa from 'koa';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { Services } from '../services';
import { artifactRoutes } from './artifact-routes';
import { apiKeyAuthenticator, authenticate, credentialStillValid, jwtAuthenticator, principalOf, refuseNodeKey } from './authenticate';
import { credentialSlots } from './credential-slots';
import { lastEventIdOf, streamJobLogs } from './log-stream';
import { buildDocument, newRegistry } from './openapi';
import { createRateLimiter, rateLimit } from './rate-limit';
import { artifactPresignRoutes } from './surface-a/artifacts-routes';
import { authRoutes } from './surface-a/auth-routes';
import { surfaceAEnvelope } from './surface-a/envelope';
import { jobsRoutes } from './surface-a/jobs-routes';
import { keysRoutes } from './surface-a/keys-routes';
import { nodesRoutes } from './surface-a/nodes-routes';
import { stateA } from './surface-a/render';

export function createApp({ services, config, log, db }: { services: Services; config: Config; log: Logger; db: Knex }): Koa {
  const app = new Koa();
  app.proxy = config.http.trustProxy;
  // A client closing a stream (SSE reader gone, long poll abandoned) is normal, not an error.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'ERR_STREAM_PREMATURE_CLOSE' || err.code === 'ECONNRESET' || err.code === 'EPIPE') return;
    log.error({ err }, 'http error');
  });
  const registry = newRegistry();

  const streams = credentialSlots('log streams', config.limits.sseStreamsPerCredential);
  const limiter = createRateLimiter({ db, ...config.rateLimits, log });

  // Bodies are read only after the caller is known and within budget: an anonymous client cannot
  // make us buffer a megabyte, and a bad credential costs no parsing.
  const json = bodyParser({ enableTypes: ['json'], jsonLimit: config.limits.bodyBytes, encoding: 'utf-8' });

  // Login takes no credential; its budget is the caller's address.
  const login = new Router({ prefix: '/api' });
  login.use(rateLimit(limiter));
  login.use(json);
  login.use(authRoutes(services, registry).routes());

  const surfaceA = new Router({ prefix: '/api' });
  const { credentials } = services;
  surfaceA.use(authenticate([apiKeyAuthenticator(db, credentials), jwtAuthenticator(services.tokens, db, credentials)], config.rateLimits.authFailuresPerMinute));
  surfaceA.use(rateLimit(limiter));
  surfaceA.use(json);
  surfaceA.use(jobsRoutes(services, registry).routes());
  surfaceA.use(nodesRoutes(services, registry, credentialSlots('polls', config.limits.pollsPerCredential)).routes());
  surfaceA.use(keysRoutes(services, registry).routes());
  surfaceA.use(artifactPresignRoutes(services, registry).routes());
  // Signed URLs are their own credential: no authentication, and raw bodies (before the JSON parser).
  const artifactUrls = artifactRoutes({ ...services, idleTimeoutMs: config.http.uploadIdleTimeoutMs }, registry);
  surfaceA.get('/compute/jobs/:jobId/logs', async (ctx) => {
    refuseNodeKey(ctx);
    const principal = principalOf(ctx);
    const jobId = ctx.params.jobId;
    await services.jobs.get(principal, jobId);
    const afterSeq = lastEventIdOf(ctx);
    const release = streams.acquire(principal.credentialId);
    streamJobLogs(ctx, jobId, afterSeq, {
      credentialValid: () => credentialStillValid(db, credentials, principal),
      credentialExpiresAt: principal.expiresAt,
      onClose: release,
      logs: services.logs,
      feeds: services.feeds,
      keepAliveMs: config.durations.sseKeepAliveMs,
      maxBufferedBytes: config.limits.sseBufferBytes,
      log,
      renderState: stateA,
      follow: ctx.query.follow !== 'false',
    });
  });
  registry.registerPath({
    method: 'get',
    path: '/api/compute/jobs/{jobId}/logs',
    summary:
      "SSE stream of a job's log: `event: log` (id = seq), `event: log.truncated`, then `event: end`; resume with Last-Event-ID. " +
      'At most SSE_STREAMS_PER_CREDENTIAL streams per credential at once (429 past it); a stream whose credential is revoked or expires is closed. ' +
      '`?follow=false` sends what is stored and closes (with `end` only if the job is over)',
    tags: ['jobs'],
    security: [{ ApiKey: [] }, { Bearer: [] }],
    responses: { 200: { description: 'text/event-stream' } },
  });
  const document = buildDocument(registry);

  const open = new Router();
  open.get('/api/openapi.json', (ctx) => {
    ctx.state.raw = true;
    ctx.body = document;
  });
  open.get('/healthz', (ctx) => {
    ctx.body = { ok: true };
  });

  const envelope = surfaceAEnvelope(log, config.dependencyRetryAfterSeconds);
  if (log.isLevelEnabled('debug')) {
    app.use(async (ctx, next) => {
      const started = Date.now();
      await next();
      log.debug({ method: ctx.method, path: ctx.path, status: ctx.status, ms: Date.now() - started }, 'request');
    });
  }
  app.use((ctx, next) => (ctx.path.startsWith('/api') ? envelope(ctx, next) : next()));
  app.use(artifactUrls.routes());
  app.use(open.routes());
  app.use(login.routes());
  app.use(surfaceA.routes());
  app.use(surfaceA.allowedMethods());
  return app;
}
