import { AppError } from '../shared/errors';

// Who may do what (CONTRACT §5), written once as data: every route of both surfaces names one of
// these actions, and the authorization test is generated from the same table.

export const ROLES = ['member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 };

export const atLeast = (role: Role, min: Role): boolean => RANK[role] >= RANK[min];
export const lowerOf = (a: Role, b: Role): Role => (RANK[a] <= RANK[b] ? a : b);
export const isRole = (v: unknown): v is Role => typeof v === 'string' && (ROLES as readonly string[]).includes(v);

/** The least role each action needs in the workspace it acts on. */
export const REQUIRED_ROLE = {
  'workspace.read': 'member',
  'workspace.update': 'admin',
  'member.read': 'member',
  // Adding, changing or removing an admin or an owner needs an owner as well (see memberChange).
  'member.add': 'admin',
  'member.update': 'admin',
  'member.remove': 'admin',
  'token.read': 'member',
  'token.create': 'admin',
  'token.revoke': 'admin',
  'audit.read': 'admin',
  'job.read': 'member',
  'job.submit': 'member',
  'job.cancel': 'member',
  'job.retry': 'member',
  'artifact.read': 'member',
  'artifact.write': 'member',
  'agent.read': 'member',
  'agent.register': 'member',
  // An agent's own protocol (heartbeat, poll, logs, result), when called with a user's credential.
  'agent.work': 'member',
  // A node key drains and rotates its own node without a role; anyone else needs an admin's.
  'agent.drain': 'admin',
  'agent.rotate_key': 'admin',
  'agent.deregister': 'admin',
  'key.read': 'member',
  'key.create': 'member',
  'key.revoke': 'member',
  // A member reads everything in the workspace (CONTRACT §5): endpoints without their secrets, and
  // the delivery log; changing them is an admin's.
  'webhook.read': 'member',
  'webhook.create': 'admin',
  'webhook.delete': 'admin',
  'webhook.rotate_secret': 'admin',
  'webhook.redeliver': 'admin',
  'billing.read': 'member',
  'billing.limits_update': 'admin',
  'billing.checkout': 'admin',
  // The codec endpoint (Temporal's UI): reading a workspace's payloads in clear, and sealing some.
  'codec.decode': 'admin',
  'codec.encode': 'admin',
} as const satisfies Record<string, Role>;

export type Action = keyof typeof REQUIRED_ROLE;

export const forbidden = (action: string, need: Role) =>
  new AppError('auth.forbidden', `This needs the ${need} role in the workspace`, { action, requiredRole: need });

/** Refuses with 403 unless `role` may do `action`. */
export function demand(role: Role, action: Action): void {
  const need = REQUIRED_ROLE[action];
  if (!atLeast(role, need)) throw forbidden(action, need);
}

/**
 * A change of membership touching an admin or an owner (as the member's role before or after)
 * is an owner's alone; the rest is an admin's.
 */
export function requiredForMemberChange(...roles: Array<Role | undefined>): Role {
  return roles.some((r) => r === 'admin' || r === 'owner') ? 'owner' : 'admin';
}
