import type { JobState } from '../../../workflows/job-model';

// The /v0 records the portal reads, as the OpenAPI document describes them (the fields it shows).

export { JOB_STATES, isTerminal, type JobState } from '../../../workflows/job-model';

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
  agentId: string | null;
}

export interface Workspace {
  id: string;
  name: string;
  role: 'owner' | 'admin' | 'member';
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
