import type { Knex } from 'knex';
import { appendAudit } from '../audit/log';
import { auditBy, authorize } from '../auth/authorize';
import type { CredentialCache } from '../auth/credential-cache';
import type { Principal } from '../auth/principal';
import { type Role, atLeast, forbidden, lowerOf, requiredForMemberChange } from '../auth/roles';
import { userByEmail } from '../auth/users';
import { type PageRequest, decodeCursor, pageOf } from '../shared/cursor';
import type { AgentsService } from '../agents/service';
import type { ApiConfig } from '../config';
import { lockOwner, refuseAtBound } from '../shared/count-bound';
import { AppError, notFound } from '../shared/errors';
import { newId } from '../shared/ids';
import { iso } from '../shared/time';

// Workspaces and their members (CONTRACT §5). Every change is checked against the role matrix
// (roles.ts), written with its audit entry in one transaction, and a change of membership is
// announced to every instance's credential cache by the table's trigger.

export type Plan = 'hobby' | 'payg' | 'team' | 'enterprise';

export interface WorkspaceRecord {
  id: string;
  name: string;
  defaultRegion: string;
  plan: Plan;
  role: Role;
  createdAt: string;
}

export interface MemberRecord {
  userId: string;
  email: string;
  role: Role;
  addedAt: string;
}

const workspaceOf = (r: Record<string, unknown>): WorkspaceRecord => ({
  id: r.id as string,
  name: r.name as string,
  defaultRegion: r.default_region as string,
  plan: r.plan as Plan,
  role: r.role as Role,
  createdAt: iso(r.created_at as Date),
});
const memberOf = (r: Record<string, unknown>): MemberRecord => ({
  userId: r.user_id as string,
  email: r.email as string,
  role: r.role as Role,
  addedAt: iso(r.created_at as Date),
});

const conflict = (message: string) => new AppError('resource.conflict', message);

export interface RemovedMember {
  userId: string;
  email: string;
  role: Role;
  /** What the removal revoked in the workspace: the member's keys and tokens, and the agents registered through them. */
  revoked: { keys: string[]; tokens: string[]; agents: string[] };
}

export interface WorkspacesDeps {
  db: Knex;
  credentials: CredentialCache;
  counts: ApiConfig['counts'];
  agents: Pick<AgentsService, 'removeRegisteredBy' | 'wakeRemoved'>;
}

export function createWorkspacesService({ db, credentials, counts, agents }: WorkspacesDeps) {
  const withRole = (q: Knex.QueryBuilder, userId: string) =>
    q
      .from('workspaces as w')
      .join('workspace_members as m', (on) => on.on('m.workspace_id', 'w.id').andOnVal('m.user_id', '=', userId))
      .select('w.*', 'm.role');

  /** The member row, locked against concurrent changes of the same workspace's owners. */
  const lockedMember = async (trx: Knex.Transaction, workspaceId: string, userId: string) => {
    // One membership change per workspace at a time: "always one owner" holds under races.
    await lockOwner(trx, 'workspaces', workspaceId);
    return trx('workspace_members as m')
      .join('users as u', 'u.id', 'm.user_id')
      .where({ 'm.workspace_id': workspaceId, 'm.user_id': userId })
      .first('m.*', 'u.email');
  };
  const ownersLeft = async (trx: Knex.Transaction, workspaceId: string, exceptUserId: string) =>
    Number(
      (await trx('workspace_members')
        .where({ workspace_id: workspaceId, role: 'owner' })
        .whereNot({ user_id: exceptUserId })
        .count('* as n')
        .first())!.n,
    );

  return {
    async create(p: Principal, body: { name: string; defaultRegion: string }): Promise<WorkspaceRecord> {
      if (p.credential === 'token')
        throw new AppError(
          'auth.forbidden',
          'An access token acts in its one workspace; create workspaces with a session token',
          { action: 'workspace.create' },
        );
      const id = newId('ws');
      await db.transaction(async (trx) => {
        await lockOwner(trx, 'users', p.userId!);
        await refuseAtBound(
          trx('workspaces').where({ created_by_user_id: p.userId }),
          counts.workspacesCreated,
          'Workspaces one user may create',
        );
        await trx('workspaces').insert({
          id,
          name: body.name,
          default_region: body.defaultRegion,
          created_by_user_id: p.userId,
        });
        await trx('workspace_members').insert({ workspace_id: id, user_id: p.userId, role: 'owner' });
        await appendAudit(trx, {
          ...auditBy(p),
          workspaceId: id,
          action: 'workspace.create',
          target: { type: 'workspace', id },
          details: { name: body.name, defaultRegion: body.defaultRegion },
        });
      });
      return workspaceOf(await withRole(db.queryBuilder(), p.userId!).where('w.id', id).first());
    },

    /** The caller's workspaces with the role it acts with in each; an access token sees its own only. */
    async list(p: Principal, page: PageRequest) {
      const q = withRole(db.queryBuilder(), p.userId!);
      if (p.credential === 'token') q.where('w.id', p.workspaceId);
      if (page.cursor) q.where('w.id', '>', decodeCursor(page.cursor, 'ws', 'pageToken'));
      // A token acts with its own role capped by its issuer's (p.role), not the issuer's: as `get` shows.
      const view =
        p.credential === 'token' ? (r: Record<string, unknown>) => ({ ...workspaceOf(r), role: p.role! }) : workspaceOf;
      return pageOf(await q.orderBy('w.id').limit(page.limit + 1), page.limit, view);
    },

    async get(p: Principal): Promise<WorkspaceRecord> {
      await authorize(db, p, 'workspace.read', { type: 'workspace', id: p.workspaceId });
      return { ...workspaceOf(await db('workspaces').where({ id: p.workspaceId }).first()), role: p.role! };
    },

    async update(p: Principal, changes: { name?: string; defaultRegion?: string }): Promise<WorkspaceRecord> {
      const id = p.workspaceId;
      await authorize(db, p, 'workspace.update', { type: 'workspace', id });
      const set = {
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.defaultRegion !== undefined ? { default_region: changes.defaultRegion } : {}),
      };
      if (Object.keys(set).length) {
        await db.transaction(async (trx) => {
          await trx('workspaces').where({ id }).update(set);
          await appendAudit(trx, {
            ...auditBy(p),
            action: 'workspace.update',
            target: { type: 'workspace', id },
            details: changes,
          });
        });
      }
      return { ...workspaceOf(await db('workspaces').where({ id }).first()), role: p.role! };
    },

    /** Adds a member by e-mail; an address without an account gets one, usable at its first login. */
    async addMember(p: Principal, body: { email: string; role: Role }): Promise<MemberRecord> {
      const workspaceId = p.workspaceId;
      const email = body.email.toLowerCase();
      await authorize(db, p, 'member.add', { type: 'user', id: email }, requiredForMemberChange(body.role));
      const added = await db.transaction(async (trx) => {
        const { row: user } = await userByEmail(trx, email);
        if (await lockedMember(trx, workspaceId, user.id))
          throw conflict(`${email} is already a member of this workspace`);
        await refuseAtBound(
          trx('workspace_members').where({ workspace_id: workspaceId }),
          counts.members,
          'Members of a workspace',
        );
        await trx('workspace_members').insert({ workspace_id: workspaceId, user_id: user.id, role: body.role });
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'member.add',
          target: { type: 'user', id: user.id },
          details: { email, role: body.role },
        });
        return user.id;
      });
      return (await memberView(db, workspaceId, added))!;
    },

    async listMembers(p: Principal, page: PageRequest) {
      await authorize(db, p, 'member.read', { type: 'workspace', id: p.workspaceId });
      const q = db('workspace_members as m')
        .join('users as u', 'u.id', 'm.user_id')
        .where('m.workspace_id', p.workspaceId)
        .select('m.*', 'u.email');
      if (page.cursor) q.where('m.user_id', '>', decodeCursor(page.cursor, 'usr', 'pageToken'));
      return pageOf(await q.orderBy('m.user_id').limit(page.limit + 1), page.limit, memberOf, (m) => m.userId);
    },

    async updateMember(p: Principal, userId: string, role: Role): Promise<MemberRecord> {
      const workspaceId = p.workspaceId;
      await authorize(db, p, 'member.update', { type: 'user', id: userId });
      const refused = await db.transaction(async (trx) => {
        const row = await lockedMember(trx, workspaceId, userId);
        if (!row) throw notFound('Member');
        // Decided on the rows read under the lock: a promotion or demotion racing this change is seen.
        const denied = await deniedUnderLock(trx, p, requiredForMemberChange(row.role, role));
        if (denied) return denied;
        if (row.role === role) return null;
        if (row.role === 'owner' && (await ownersLeft(trx, workspaceId, userId)) === 0)
          throw conflict('A workspace keeps at least one owner: make another member owner first');
        await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).update({ role });
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'member.update',
          target: { type: 'user', id: userId },
          details: { from: row.role, to: role },
        });
        return null;
      });
      if (refused) return refuse(db, refused, 'member.update', userId);
      await credentials.settle();
      return (await memberView(db, workspaceId, userId))!;
    },

    /**
     * Removes a member: their session stops acting in the workspace, and every key and token they
     * hold in it and every agent registered through them is revoked, on every instance before this
     * answers. The answer lists what was revoked.
     */
    async removeMember(p: Principal, userId: string): Promise<RemovedMember> {
      const workspaceId = p.workspaceId;
      await authorize(db, p, 'member.remove', { type: 'user', id: userId });
      const outcome = await db.transaction(async (trx) => {
        const row = await lockedMember(trx, workspaceId, userId);
        if (!row) throw notFound('Member');
        const denied = await deniedUnderLock(trx, p, requiredForMemberChange(row.role));
        if (denied) return { denied, removed: null, nodes: [] };
        if (row.role === 'owner' && (await ownersLeft(trx, workspaceId, userId)) === 0)
          throw conflict('A workspace keeps at least one owner: make another member owner first');
        await trx('workspace_members').where({ workspace_id: workspaceId, user_id: userId }).delete();
        const credentialsRevoked: Array<{ id: string; kind: string }> = await trx('api_keys')
          .where({ workspace_id: workspaceId, user_id: userId })
          .whereIn('kind', ['user', 'agent', 'token'])
          .whereNull('revoked_at')
          .update({ revoked_at: trx.fn.now() })
          .returning(['id', 'kind']);
        const nodes = await agents.removeRegisteredBy(trx, p, userId);
        const revoked = {
          keys: credentialsRevoked.filter((c) => c.kind !== 'token').map((c) => c.id),
          tokens: credentialsRevoked.filter((c) => c.kind === 'token').map((c) => c.id),
          agents: nodes.map((n) => n.id),
        };
        await appendAudit(trx, {
          ...auditBy(p),
          action: 'member.remove',
          target: { type: 'user', id: userId },
          details: {
            email: row.email,
            role: row.role,
            revokedCredentials: credentialsRevoked.map((c) => c.id),
            revoked,
          },
        });
        return { removed: { userId, email: row.email as string, role: row.role as Role, revoked }, nodes };
      });
      if (!outcome.removed) return refuse(db, outcome.denied!, 'member.remove', userId);
      await agents.wakeRemoved(outcome.nodes);
      await credentials.settle();
      return outcome.removed;
    },
  };
}

/**
 * Whether the caller lacks `need`, judged on their membership as read under the workspace's lock
 * (a token's role stays capped by its own): the refusal itself is written by `authorize` after
 * the transaction, so it is not rolled back with it.
 */
/** Writes the refusal's audit entry and throws it (403). */
async function refuse(
  db: Knex,
  denied: { as: Principal; need: Role },
  action: 'member.update' | 'member.remove',
  userId: string,
): Promise<never> {
  await authorize(db, denied.as, action, { type: 'user', id: userId }, denied.need);
  throw forbidden(action, denied.need);
}

async function deniedUnderLock(
  trx: Knex.Transaction,
  p: Principal,
  need: Role,
): Promise<{ as: Principal; need: Role } | null> {
  const member = p.userId
    ? await trx('workspace_members').where({ workspace_id: p.workspaceId, user_id: p.userId }).first('role')
    : undefined;
  const role = member && p.role ? lowerOf(p.role, member.role as Role) : p.userId ? undefined : p.role;
  return role && atLeast(role, need) ? null : { as: { ...p, role }, need };
}

/** A member with their e-mail; undefined when not a member. */
async function memberView(db: Knex, workspaceId: string, userId: string): Promise<MemberRecord | undefined> {
  const row = await db('workspace_members as m')
    .join('users as u', 'u.id', 'm.user_id')
    .where({ 'm.workspace_id': workspaceId, 'm.user_id': userId })
    .first('m.*', 'u.email');
  return row ? memberOf(row) : undefined;
}

export type WorkspacesService = ReturnType<typeof createWorkspacesService>;
