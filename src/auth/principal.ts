/** Who is calling, resolved by the auth middleware from whichever credential the request carries. */
export interface Principal {
  workspaceId: string;
  /** `user` and `agent` keys and JWTs act for the workspace; a `node` key acts for one registered agent. */
  kind: 'user' | 'agent' | 'node';
  credential: 'api_key' | 'jwt';
  /** The API key used; absent for a JWT. */
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
