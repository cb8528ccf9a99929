import type { Role } from '../../auth/roles';
import type { JobState } from '../../../workflows/job-model';

// The /v0 records the portal reads, as the OpenAPI document describes them (the fields it shows).

export { JOB_STATES, isTerminal, type JobState } from '../../../workflows/job-model';
export type { Role } from '../../auth/roles';

export interface Job {
  id: string;
  state: JobState;
  type: string;
  command: string;
  labels: Record<string, string>;
  pool: 'self' | 'managed';
  region: string | null;
  retry: { maxAttempts: number; backoffSeconds: number };
  attempt: number;
  timeoutSeconds: number;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  exitCode: number | null;
  runtimeMs: number | null;
  failureReason: string | null;
  error: string | null;
  /** On one job's read, while it is queued and no agent could take it: why. */
  waitingReason?: string;
  agentId: string | null;
  artifacts: Artifact[];
}

export interface Workspace {
  id: string;
  name: string;
  role: Role;
  plan: string;
}

export interface Page<T> {
  items: T[];
  nextPageToken: string | null;
}

export interface Session {
  user: { id: string; email: string };
  workspaceId: string;
  expiresAt: string;
}

export interface Artifact {
  id: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: string;
}

export interface Attempt {
  attempt: number;
  agentId: string;
  assignedAt: string;
  lastHeartbeatAt: string;
  endedAt: string | null;
  endReason: string | null;
  exitCode: number | null;
  runtimeMs: number | null;
}

export interface Agent {
  id: string;
  name: string;
  labels: Record<string, string>;
  state: 'ONLINE' | 'DRAINING' | 'DRAINED' | 'OFFLINE';
  version: string | null;
  region: string | null;
  lastHeartbeatAt: string;
  currentJobs: string[];
  drainDeadlineAt: string | null;
  createdAt: string;
}

/** Surface A's API key: `prefix` is public, the secret is shown once at creation. */
export interface ApiKey {
  id: string;
  prefix: string;
  name: string;
  kind: 'user' | 'agent' | 'node';
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface AccessToken {
  id: string;
  name: string;
  role: Role;
  userId: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  addedAt: string;
}

export const WEBHOOK_EVENTS = ['job.created', 'job.transitioned', 'job.terminal'] as const;

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabledReason: string | null;
  createdAt: string;
  previousSecretExpiresAt: string | null;
}

export interface Delivery {
  id: string;
  eventId: string;
  eventType: string;
  jobId: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  redelivery: boolean;
  responseStatus: number | null;
  error: string | null;
  durationMs: number;
  createdAt: string;
  nextAttemptAt: string | null;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: { type: string; id: string; email?: string };
  action: string;
  target: { type: string; id: string };
  outcome: 'success' | 'denied';
  ip: string | null;
  details: Record<string, unknown>;
}

interface Figures {
  cpuSeconds: number;
  gpuSeconds: number;
  gbSeconds: number;
  estimateUsd: number;
}

export interface Usage extends Figures {
  windowStart: string;
  windowEnd: string;
  managed: Figures;
  self: Figures;
}

export interface Limits {
  softCapUsd: number | null;
  hardCapUsd: number | null;
  pending: { softCapUsd: number | null; hardCapUsd: number | null; requestedAt: string } | null;
}

export interface Invoice {
  id: string;
  periodStart: string;
  periodEnd: string;
  status: 'draft' | 'open' | 'paid';
  totalUsd: number;
  /** The prepaid credit the invoice's usage drew (its credit line). */
  creditUsd: number;
  lines: unknown[];
}
