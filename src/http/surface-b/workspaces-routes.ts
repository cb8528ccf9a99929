import { Email } from '../validate';
import { z } from 'zod';
import { ROLES } from '../../auth/roles';
import type { Services } from '../../services';
import type { AuditExporter } from './audit-export';
import { principalOf } from '../authenticate';
import { type AnyOperation, operation, PageQuery, asPage, pageSchema, repeated } from './operations';

const Role = z.enum(ROLES);
const Region = z.string().regex(/^[a-z0-9-]{1,32}$/, 'lower-case letters, digits and -, at most 32');
const Name = z.string().trim().min(1).max(100);
const WorkspaceId = z.object({ id: z.string().max(64) });
const MemberPath = z.object({ id: z.string().max(64), userId: z.string().max(64) });

const Workspace = z
  .object({
    id: z.string(),
    name: z.string(),
    defaultRegion: z.string(),
    plan: z.enum(['hobby', 'payg', 'team', 'enterprise']),
    role: Role,
    createdAt: z.string(),
  })
  .meta({ id: 'Workspace' });
const Member = z
  .object({ userId: z.string(), email: z.string(), role: Role, addedAt: z.string() })
  .meta({ id: 'Member' });
const RemovedMember = z
  .object({
    userId: z.string(),
    email: z.string(),
    role: Role.meta({ description: 'The role they had' }),
    revoked: z.object({ keys: z.array(z.string()), tokens: z.array(z.string()), agents: z.array(z.string()) }),
  })
  .meta({ id: 'RemovedMember' });
const AuditEntry = z
  .object({
    id: z.string(),
    at: z.string(),
    actor: z.object({
      type: z.enum(['user', 'token', 'key', 'node', 'system']),
      id: z.string(),
      email: z.string().optional(),
    }),
    action: z.string().meta({
      description:
        "`noun.verb`: the actions CONTRACT §5 lists, and `job.reset` (a job's run reset in Temporal; actor system/temporal, details.reason as Temporal records it) and `codec.decode` (payloads decoded for the Temporal UI)",
    }),
    target: z.object({ type: z.string(), id: z.string() }),
    workspaceId: z.string(),
    outcome: z.enum(['success', 'denied']),
    ip: z.string().nullable(),
    userAgent: z.string().nullable(),
    details: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'AuditEntry' });
const Instant = z.iso.datetime({ offset: true }).transform((s) => new Date(s));

export function workspacesOperations(services: Services, exportAudit: AuditExporter): AnyOperation[] {
  const { workspaces, audit } = services;
  return [
    operation({
      method: 'post',
      path: '/v0/workspaces',
      tag: 'workspaces',
      summary: 'Create a workspace; the caller becomes its owner (plan hobby). A session token only',
      action: 'none',
      scope: 'caller',
      body: z.strictObject({ name: Name, defaultRegion: Region.default('local') }),
      status: 201,
      response: Workspace,
      problems: {
        409: 'resource.conflict: the caller created WORKSPACES_CREATED_MAX workspaces already (default 20; `details.limit`)',
      },
      handle: (ctx, { body }) => workspaces.create(principalOf(ctx), body),
    }),
    operation({
      method: 'get',
      path: '/v0/workspaces',
      tag: 'workspaces',
      summary: "The caller's workspaces, each with the caller's role (an access token: its own)",
      action: 'none',
      scope: 'caller',
      query: z.strictObject(PageQuery),
      response: pageSchema(Workspace),
      handle: async (ctx, { query }) =>
        asPage(await workspaces.list(principalOf(ctx), { limit: query.pageSize, cursor: query.pageToken })),
    }),
    operation({
      method: 'get',
      path: '/v0/workspaces/{id}',
      tag: 'workspaces',
      summary: 'One workspace, with the caller’s role',
      action: 'workspace.read',
      scope: 'path',
      params: WorkspaceId,
      response: Workspace,
      handle: (ctx) => workspaces.get(principalOf(ctx)),
    }),
    operation({
      method: 'patch',
      path: '/v0/workspaces/{id}',
      tag: 'workspaces',
      summary: 'Rename a workspace or change its default region (admin)',
      action: 'workspace.update',
      scope: 'path',
      params: WorkspaceId,
      body: z.strictObject({ name: Name.optional(), defaultRegion: Region.optional() }),
      response: Workspace,
      handle: (ctx, { body }) => workspaces.update(principalOf(ctx), body),
    }),
    operation({
      method: 'post',
      path: '/v0/workspaces/{id}/members',
      tag: 'members',
      summary:
        'Add a member by e-mail (admin; an admin or owner needs an owner). An address without an account gets one, usable at its first login. ' +
        'Already a member: 409 resource.conflict',
      action: 'member.add',
      scope: 'path',
      params: WorkspaceId,
      body: z.strictObject({ email: Email, role: Role }),
      status: 201,
      response: Member,
      problems: {
        409: 'resource.conflict: already a member, or the workspace has MEMBERS_MAX members (default 1000; `details.limit`)',
      },
      handle: (ctx, { body }) => workspaces.addMember(principalOf(ctx), body),
    }),
    operation({
      method: 'get',
      path: '/v0/workspaces/{id}/members',
      tag: 'members',
      summary: 'The members and their roles',
      action: 'member.read',
      scope: 'path',
      params: WorkspaceId,
      query: z.strictObject(PageQuery),
      response: pageSchema(Member),
      handle: async (ctx, { query }) =>
        asPage(await workspaces.listMembers(principalOf(ctx), { limit: query.pageSize, cursor: query.pageToken })),
    }),
    operation({
      method: 'patch',
      path: '/v0/workspaces/{id}/members/{userId}',
      tag: 'members',
      summary:
        "Change a member's role (admin; to or from admin or owner needs an owner). The last owner stays an owner: 409",
      action: 'member.update',
      scope: 'path',
      params: MemberPath,
      body: z.strictObject({ role: Role }),
      response: Member,
      problems: { 409: 'resource.conflict: the last owner stays an owner' },
      handle: (ctx, { params, body }) => workspaces.updateMember(principalOf(ctx), params.userId, body.role),
    }),
    operation({
      method: 'delete',
      path: '/v0/workspaces/{id}/members/{userId}',
      tag: 'members',
      summary:
        'Remove a member (admin; an admin or owner needs an owner; the last owner cannot go: 409). Their session stops acting in the ' +
        'workspace; their keys and tokens in it, and every agent registered through their credentials (deregistered as DELETE ' +
        '/v0/agents/{id} does: node key refused, running jobs requeued), are revoked on every instance before this answers. The answer ' +
        'lists what was revoked; agents registered with the workspace’s own keys stay',
      action: 'member.remove',
      scope: 'path',
      params: MemberPath,
      response: RemovedMember,
      problems: { 409: 'resource.conflict: the last owner cannot go' },
      handle: (ctx, { params }) => workspaces.removeMember(principalOf(ctx), params.userId),
    }),
    operation({
      method: 'get',
      path: '/v0/workspaces/{id}/audit',
      tag: 'audit',
      summary:
        'The audit log (admin), newest first: every change through either surface and every refused attempt. `format=jsonl` streams every ' +
        'matching entry up to the newest at the start as application/jsonl, oldest first, read page by page as the client takes it (no ' +
        'paging). At most AUDIT_EXPORTS_PER_CREDENTIAL (default 2) exports per credential and AUDIT_EXPORTS_PER_INSTANCE (default 10) per ' +
        'API instance at once: past either, 429 rate_limit.exceeded with Retry-After. A credential revoked or expired during an export ' +
        'cuts its response short (no final chunk)',
      action: 'audit.read',
      scope: 'path',
      params: WorkspaceId,
      query: z.strictObject({
        ...PageQuery,
        actor: z.string().max(64).optional().meta({ description: 'The actor’s ID' }),
        action: repeated(z.string().max(64)).meta({ description: 'Repeatable: any of these actions' }),
        targetId: z.string().max(256).optional(),
        since: Instant.optional().meta({ description: 'Entries at or after (ISO 8601)' }),
        until: Instant.optional().meta({ description: 'Entries before (ISO 8601)' }),
        format: z.enum(['json', 'jsonl']).default('json'),
      }),
      response: pageSchema(AuditEntry),
      alternative: { type: 'application/jsonl', description: 'format=jsonl: one AuditEntry per line, oldest first' },
      problems: {
        429: 'rate_limit.exceeded: the workspace plan’s budget, or (format=jsonl) the exports open for the credential or the instance (Retry-After)',
      },
      handle: async (ctx, { query }) => {
        const { pageSize, pageToken, format, ...filter } = query;
        if (format === 'jsonl') return exportAudit(ctx, principalOf(ctx), filter);
        return asPage(await audit.list(principalOf(ctx), filter, { limit: pageSize, cursor: pageToken }));
      },
    }),
  ];
}
