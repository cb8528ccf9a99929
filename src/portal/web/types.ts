import type { components } from '../../../clients/typescript/src/schema';

// The /v0 records the portal reads: the typed client's, generated from the OpenAPI document
// (clients/typescript), so a field changes in one place; what the document leaves open is kept here.
type Schemas = components['schemas'];

export { JOB_STATES, isTerminal, type JobState } from '../../../workflows/job-model';
export type { Role } from '../../auth/roles';

export type Job = Schemas['Job'];

/** The fields the portal shows; a workspace not (yet) in the list is shown with no plan. */
export type Workspace = Pick<Schemas['Workspace'], 'id' | 'name' | 'role'> & { plan: string };

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

export type Attempt = Schemas['Attempt'];

export type Agent = Schemas['Agent'];

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

export type AccessToken = Schemas['AccessToken'];

export type Member = Schemas['Member'];

export const WEBHOOK_EVENTS = ['job.created', 'job.transitioned', 'job.terminal'] as const;

export type Webhook = Schemas['Webhook'];

export type Delivery = Schemas['WebhookDelivery'];

export type AuditEntry = Schemas['AuditEntry'];

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
