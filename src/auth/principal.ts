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
}
