import { z } from 'zod';
import { ROLES } from '../../auth/roles';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type AnyOperation, operation, PageQuery, asPage, pageSchema } from './operations';

const Role = z.enum(ROLES);
const Token = z
  .object({
    id: z.string(),
    name: z.string(),
    role: Role,
    workspaceId: z.string(),
    userId: z.string().meta({ description: 'The issuer: the token acts for them' }),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'AccessToken' });

export function tokensOperations(services: Services): AnyOperation[] {
  const { accessTokens } = services;
  return [
    operation({
      method: 'post',
      path: '/v0/tokens',
      tag: 'tokens',
      summary:
        'Issue a personal access token `cpat_…` in the active workspace (admin or owner, from a session token): it acts for the issuer, with ' +
        '`role` (default member, at most the issuer’s) capped by the issuer’s role at each request. `token` is shown only here',
      action: 'token.create',
      scope: 'active',
      body: z.strictObject({
        name: z.string().trim().min(1).max(100),
        role: Role.default('member'),
        expiresInDays: z.number().int().min(1).max(3650).optional(),
      }),
      status: 201,
      response: Token.extend({ token: z.string() }),
      problems: {
        409: 'resource.conflict: the workspace has ACCESS_TOKENS_MAX live tokens (default 100; `details.limit`)',
      },
      handle: (ctx, { body }) => accessTokens.create(principalOf(ctx), body),
    }),
    operation({
      method: 'get',
      path: '/v0/tokens',
      tag: 'tokens',
      summary: "The workspace's access tokens, newest first, without secrets",
      action: 'token.read',
      scope: 'active',
      query: z.strictObject(PageQuery),
      response: pageSchema(Token),
      handle: async (ctx, { query }) =>
        asPage(await accessTokens.list(principalOf(ctx), { limit: query.pageSize, cursor: query.pageToken })),
    }),
    operation({
      method: 'delete',
      path: '/v0/tokens/{id}',
      tag: 'tokens',
      summary: 'Revoke a token (admin; idempotent): every API instance refuses it before this answers',
      action: 'token.revoke',
      scope: 'active',
      params: z.object({ id: z.string().max(64) }),
      status: 204,
      handle: async (ctx, { params }) => {
        await accessTokens.revoke(principalOf(ctx), params.id);
      },
    }),
  ];
}
