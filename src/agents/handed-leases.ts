import type { Capacity } from './record';

/** What a result's checks read (src/agents/result-read.ts), as the hand-out knew it. */
export interface HandedLease {
  jobId: string;
  jobWorkspaceId: string;
  node: { id: string; workspace_id: string; pool: string; region: string | null; capacity: Capacity | null };
}

/**
 * The leases this instance's polls handed out, until their result: the result's checks (whose
 * node, which job, whose attempt) are answered from what the hand-out knew instead of a read on the
 * result's critical path. All of it is fixed once the lease exists: a node's workspace, a job's,
 * the attempt's agent; a removed node may still report what it ran, as the read allows. A lease
 * handed out by another instance, one evicted, or one reported again is read from the rows.
 * Bounded: past `max`, the oldest go first.
 */
export class HandedLeases {
  private readonly leases = new Map<string, HandedLease>();

  constructor(private readonly max: number) {}

  remember(leaseId: string, lease: HandedLease): void {
    if (this.leases.size >= this.max) this.leases.delete(this.leases.keys().next().value!);
    this.leases.set(leaseId, lease);
  }

  /**
   * The lease as handed out, if the report names its job and its node, in the caller's
   * workspace; forgotten either way, so anything that does not match goes through the read.
   */
  take(leaseId: string, report: { jobId: string; nodeId: string }, workspaceId: string): HandedLease | undefined {
    const lease = this.leases.get(leaseId);
    if (!lease) return undefined;
    this.leases.delete(leaseId);
    const matches =
      lease.jobId === report.jobId && lease.node.id === report.nodeId && lease.node.workspace_id === workspaceId;
    return matches ? lease : undefined;
  }

  get size(): number {
    return this.leases.size;
  }
}
