import { isLost } from './liveness';

export type AgentState = 'ONLINE' | 'DRAINING' | 'DRAINED' | 'OFFLINE';

/** What an agent has for its jobs, as it registered it (see the `agents.capacity` migration). */
export interface Capacity {
  cpu: number;
  memoryMb: number;
  gpu: number;
}

export interface Agent {
  id: string;
  workspaceId: string;
  name: string;
  labels: Record<string, string>;
  capabilities: Record<string, unknown>;
  capacity: Capacity | null;
  version: string | null;
  /** `managed` for an agent of the operator's managed pool, else `self` (a workspace's own). */
  pool: 'self' | 'managed';
  /** The region a managed-pool agent serves; null for a workspace's own agent. */
  region: string | null;
  state: AgentState;
  drain: boolean;
  drainDeadlineAt: string | null;
  lastHeartbeatAt: string;
  runningJobs: string[];
  createdAt: string;
}

/** An agent row read with its silence (`agentSilence`, liveness.ts): OFFLINE is decided on the database's clock. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function agentFromRow(r: any, lostAfterMs: number): Agent {
  const running: string[] = r.running_jobs ?? [];
  const lastHeartbeat = new Date(r.last_heartbeat_at);
  let state: AgentState = 'ONLINE';
  if (isLost(Number(r.silent_ms), lostAfterMs)) state = 'OFFLINE';
  else if (r.drain) state = running.length > 0 ? 'DRAINING' : 'DRAINED';
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    name: r.name,
    labels: r.labels,
    capabilities: r.capabilities,
    capacity: r.capacity ?? null,
    version: r.version,
    pool: r.pool,
    region: r.region ?? null,
    state,
    drain: r.drain,
    drainDeadlineAt: r.drain_deadline_at ? new Date(r.drain_deadline_at).toISOString() : null,
    lastHeartbeatAt: lastHeartbeat.toISOString(),
    runningJobs: running,
    createdAt: new Date(r.created_at).toISOString(),
  };
}
