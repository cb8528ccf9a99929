import type { Context, Middleware, Next } from 'koa';
import type { Logger } from 'pino';
import { z } from 'zod';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import type { Services } from '../services';
import { AppError } from '../shared/errors';
import type { ComputeCodec } from '../temporal/payload-codec';
import { sealingOf } from '../temporal/payload-format';
import { REQUIRED_ROLE, atLeast } from '../auth/roles';
import { originOf, sessionAuthenticator } from './authenticate';
import { accessTokenAuthenticator } from './surface-b/identity';
import { newRouter } from './router';
import { sessionCookie } from './session-cookie';
import { problemDetails } from './surface-b/problem';
import { parse } from './validate';

// Temporal's codec server protocol for the Temporal UI and CLI: POST /codec/decode and
// /codec/encode with JSON {payloads: [{metadata: {k: base64}, data: base64}]} (also under
// /codec/{namespace}/…). It decodes only for a person who may read the payload's workspace as an
// admin or owner, by the portal's session cookie (the UI's "include credentials") or a Bearer
// token; every other payload comes back as it was sent, so the UI shows it encoded rather than
// failing its page. Each decode that opened something is an audit entry per workspace, naming the
// runs the payloads authenticated as theirs, never a label that was not authenticated. Nothing here
// changes state, so no CSRF header is asked for: SameSite=Strict keeps the cookie off other sites,
// and CORS lets only the UI's origin read an answer.

const PAYLOADS_MAX = 1000;
const Body = z.strictObject({
  // Protobuf's JSON leaves an empty list out: the CLI sends `{}` for a query without arguments.
  payloads: z
    .array(z.object({ metadata: z.record(z.string(), z.string()).optional(), data: z.string().optional() }))
    .max(PAYLOADS_MAX)
    .default([]),
});
type JsonPayload = z.infer<typeof Body>['payloads'][number];

const toPayload = (p: JsonPayload) => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: { metadata?: Record<string, Uint8Array> | null; data?: Uint8Array | null }): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data ?? new Uint8Array()).toString('base64'),
});

export function codecRoutes(o: {
  services: Services;
  config: Pick<ApiConfig, 'dependencyRetryAfterSeconds' | 'portal' | 'http'>;
  log: Logger;
  codec: ComputeCodec;
  json: Middleware;
}) {
  const { services, config, codec } = o;
  const router = newRouter();
  const { auth } = services;
  // The credentials /v0 takes, read the same way: an access token, else a session (header or cookie).
  const authenticators = [accessTokenAuthenticator(auth), sessionAuthenticator(auth, sessionCookie(config))];
  const uiOrigin = config.portal.temporalUiUrl ? new URL(config.portal.temporalUiUrl).origin : undefined;

  /** CORS for the UI's origin alone, with credentials; a preflight from elsewhere is refused. */
  const cors = async (ctx: Context, next: Next) => {
    const origin = ctx.get('Origin');
    const allowed = Boolean(origin) && origin === uiOrigin;
    if (allowed) {
      ctx.set('Access-Control-Allow-Origin', origin);
      ctx.set('Access-Control-Allow-Credentials', 'true');
      ctx.vary('Origin');
    }
    if (ctx.method === 'OPTIONS') {
      if (!allowed) throw new AppError('auth.forbidden', 'This origin may not call the codec endpoint');
      ctx.set('Access-Control-Allow-Methods', 'POST, OPTIONS');
      ctx.set('Access-Control-Allow-Headers', 'Content-Type, Authorization, X-Namespace');
      ctx.set('Access-Control-Max-Age', '600');
      ctx.status = 204;
      return;
    }
    await next();
  };

  /** The person the request carries (session cookie, session or access token), or none. */
  async function caller(ctx: Context): Promise<Principal | undefined> {
    for (const authenticate of authenticators) {
      const resolved = await authenticate(ctx).catch(() => null);
      if (resolved !== undefined) return resolved && 'kind' in resolved ? resolved : undefined;
    }
    return undefined;
  }

  /** Whether `p` may do `action` to what is sealed for `workspaceId`, with its role there (a token: in its own only). */
  async function may(p: Principal, action: 'codec.decode' | 'codec.encode', workspaceId: string): Promise<boolean> {
    const role =
      p.credential === 'jwt' && p.userId
        ? await auth.roleOf(p.userId, workspaceId)
        : p.workspaceId === workspaceId
          ? p.role
          : undefined;
    return Boolean(role) && atLeast(role!, REQUIRED_ROLE[action]);
  }

  const decode = async (ctx: Context) => {
    const { payloads } = parse(Body, ctx.request.body);
    const who = await caller(ctx);
    const allowed = new Map<string, Promise<boolean>>();
    const read = new Map<string, { runs: Set<string>; withoutRun: number }>();
    const answered = await Promise.all(
      payloads.map(async (json) => {
        const payload = toPayload(json);
        const sealing = sealingOf(payload);
        if (!who || !sealing || sealing.scope === 'system') return json;
        if (!allowed.has(sealing.scope)) allowed.set(sealing.scope, may(who, 'codec.decode', sealing.scope));
        if (!(await allowed.get(sealing.scope))) return json;
        const opened = await codec.tryOpen(payload);
        if (!opened) return json;
        const { scope, workflowId } = opened.sealedFor;
        const seen = read.get(scope) ?? { runs: new Set<string>(), withoutRun: 0 };
        if (workflowId) seen.runs.add(workflowId);
        else seen.withoutRun++;
        read.set(scope, seen);
        return toJson(opened.payload);
      }),
    );
    // Reading a secret leaves a trace: who, in which workspace, which runs (those the payloads
    // authenticated; `withoutRun` counts the ones bound to no run).
    for (const [workspaceId, { runs, withoutRun }] of read) {
      const workflows = [...runs].sort();
      await o.services.auditLog.append({
        workspaceId,
        actor: who!.actor,
        action: 'codec.decode',
        target: workflows.length ? { type: 'workflow', id: workflows[0] } : { type: 'workspace', id: workspaceId },
        origin: originOf(ctx),
        details: { workflows, withoutRun, namespace: ctx.params.namespace ?? ctx.get('X-Namespace') ?? null },
      });
    }
    ctx.body = { payloads: answered };
  };

  const encode = async (ctx: Context) => {
    const { payloads } = parse(Body, ctx.request.body);
    const who = await caller(ctx);
    if (!who)
      throw new AppError('auth.unauthenticated', 'Encoding needs a session (the portal’s cookie) or a Bearer token');
    const workspaceId = ctx.get('X-Compute-Workspace') || who.workspaceId;
    if (!(await may(who, 'codec.encode', workspaceId)))
      throw new AppError('auth.forbidden', 'Encoding needs the admin role in the workspace');
    // A job's ID names the workspace whose data key seals the payloads: the caller's active one.
    const sealed = await codec.encodeFor(workspaceId, payloads.map(toPayload));
    ctx.body = { payloads: sealed.map(toJson) };
  };

  const problems = problemDetails(o.log, config.dependencyRetryAfterSeconds);
  for (const prefix of ['/codec', '/codec/:namespace']) {
    for (const [name, handle] of [
      ['decode', decode],
      ['encode', encode],
    ] as const) {
      router.options(`${prefix}/${name}`, problems, cors);
      router.post(`${prefix}/${name}`, problems, cors, o.json, handle);
    }
  }
  return router;
}
