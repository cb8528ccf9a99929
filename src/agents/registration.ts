import type { Knex } from 'knex';
import { createApiKey } from '../auth/api-keys';
import { auditBy } from '../auth/authorize';
import type { Principal } from '../auth/principal';
import { appendAudit } from '../audit/log';
import type { ApiConfig } from '../config';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import type { Capacity } from './record';

/** Where a managed-pool agent registers to serve (CONTRACT §9); `local` unless it says. */
export const DEFAULT_REGION = 'local';

/** What an agent says of itself when it registers. */
export interface Registration {
  name: string;
  labels: Record<string, string>;
  capabilities?: Record<string, unknown>;
  capacity?: Capacity;
  version?: string;
  region?: string;
}

/**
 * A new node of the caller's workspace, or, with a managed-pool key, a managed-pool agent of
 * `region` (default `local`) in the operator's workspace: its row, its node key and its
 * `agent.register` entry in one transaction. A region given with any other key is 400: a
 * workspace's own agents take its jobs wherever they run, and saying otherwise would mislead.
 */
export async function registerNode(
  db: Knex,
  principal: Principal,
  body: Registration,
  limits: Pick<ApiConfig['limits'], 'heartbeatIntervalSeconds'>,
) {
  if (principal.kind === 'node')
    throw new AppError('auth.forbidden', 'Register with an agent or user key, not a node key');
  const managed = principal.kind === 'managed';
  if (!managed && body.region !== undefined) {
    throw new AppError(
      'request.invalid',
      'Only agents registered with a managed-pool key serve a region; a workspace’s own agents take its jobs wherever they run',
      {
        fields: [{ path: 'region', message: 'needs a managed-pool key' }],
      },
    );
  }
  const id = newId('agent');
  const key = await db.transaction(async (trx) => {
    await trx('agents').insert({
      id,
      workspace_id: principal.workspaceId,
      name: body.name,
      labels: JSON.stringify(body.labels),
      capabilities: JSON.stringify(body.capabilities ?? {}),
      capacity: body.capacity ? JSON.stringify(body.capacity) : null,
      version: body.version ?? null,
      registered_with_key_id: principal.keyId,
      registered_by_user_id: principal.userId ?? null,
      pool: managed ? 'managed' : 'self',
      region: managed ? (body.region ?? DEFAULT_REGION) : null,
    });
    const made = await createApiKey(trx, {
      workspaceId: principal.workspaceId,
      name: `node ${body.name}`,
      kind: 'node',
      agentId: id,
    });
    await appendAudit(trx, {
      ...auditBy(principal),
      action: 'agent.register',
      target: { type: 'agent', id },
      details: {
        name: body.name,
        labels: body.labels,
        ...(managed && { pool: 'managed', region: body.region ?? DEFAULT_REGION }),
      },
    });
    return made;
  });
  return { nodeId: id, apiKey: key.key, heartbeatIntervalSeconds: limits.heartbeatIntervalSeconds };
}
