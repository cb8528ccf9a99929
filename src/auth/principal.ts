import type { Actor, Origin } from '../audit/log';
import type { Role } from './roles';

/** Who is calling, resolved by the auth middleware from whichever credential the request carries. */
export interface Principal {
  workspaceId: string;
  /**
   * `user` and `agent` keys, JWTs and access tokens act for the workspace; a `node` key acts for
   * one registered agent; a `managed` (managed-pool) key only registers managed-pool agents.
   */
  kind: 'user' | 'agent' | 'node' | 'managed';
  credential: 'api_key' | 'jwt' | 'token';
  /**
   * What the caller may do in the workspace (roles.ts): a session's or token's from the member's
   * current role; a node key or a managed-pool key has none (it calls the agent protocol only).
   */
  role?: Role;
  /** Who the audit log names. */
  actor: Actor;
  /** Where the request came from (set by the surface). */
  origin?: Origin;
  /** The API key or access token used; absent for a JWT. */
  keyId?: string;
  /** The logged-in user (JWT), or the user who minted the key; absent for keys minted by an operator. */
  userId?: string;
  agentId?: string;
  /** The key carries quotas: submits must be counted under the key's lock. */
  hasQuotas?: boolean;
  /**
   * Whose request budget the call spends: `usr:<id>` for a user and every key and node acting for
   * them (the interface's limits are per user), else `ws:<id>` for the workspace.
   */
  rateSubject: string;
  /** The credential itself (a key's id, a session's user and workspace): what per-credential caps count. */
  credentialId: string;
  /** When the credential stops working by itself (a session token's expiry), epoch ms. */
  expiresAt?: number;
}

/**
 * A credential of ours that no longer works (revoked, expired, its holder no longer a member):
 * refused with 401 like any bad one, and the refusal is an audit entry of the workspace it was for.
 */
export interface Refused {
  refused: { workspaceId: string; actor: Actor; reason: string; target?: { type: string; id: string } };
}

export const isRefused = (v: unknown): v is Refused => typeof v === 'object' && v !== null && 'refused' in v;
