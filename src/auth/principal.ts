/** Who is calling, resolved by the auth middleware from whichever credential the request carries. */
export interface Principal {
  workspaceId: string;
  /** `user` and `agent` keys act for the workspace; a `node` key acts for one registered agent. */
  kind: 'user' | 'agent' | 'node';
  keyId: string;
  agentId?: string;
}
