import { reportedUsage } from '../billing/reported-usage';
import type { DataKeys } from '../crypto/data-keys';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import type { Notifier } from '../db/notifier';
import { EmptyClaims } from './empty-claims';
import { livenessStamps } from './liveness-stamps';
import { createApiKey, revokeNodeKeys } from '../auth/api-keys';
import type { CredentialCache } from '../auth/credential-cache';
import type { Principal } from '../auth/principal';
import { appendAudit } from '../audit/log';
import { auditBy } from '../auth/authorize';
import { heartbeatAttempts } from '../jobs/heartbeats';
import type { Transitions } from '../jobs/transitions';
import { resultRead } from './result-read';
import { HandedLeases } from './handed-leases';
import { nodeAccess } from './node-access';
import { JOB_COLUMNS, type Job, jobFromRow } from '../jobs/record';
import { type PageRequest, decodeCursor, pageOf } from '../shared/cursor';
import { AppError, notAssigned, notFound } from '../shared/errors';
import type { JobWorkflowClient } from '../temporal/job-workflow-client';
import { agentSilence } from './liveness';
import { whyWaitingIn } from './waiting';
import { type IdleNode, createPoll } from './poll';
import { handedPolls } from './handed-polls';
import { stopLists } from './stop-lists';
import { PollWaiters } from './poll-waiters';
import { isClaimable } from '../jobs/reservations';
import { type Agent, agentFromRow } from './record';
import { nodeRemoval } from './node-removal';
import { type Registration, registerNode } from './registration';

export interface AgentsDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  transitions: Transitions;
  notifier: Notifier;
  credentials: CredentialCache;
  /** Opens each assignment's env (sealed in its row). */
  dataKeys: DataKeys;
  config: Pick<ApiConfig, 'durations' | 'limits'>;
  log: Logger;
}

export interface ResultReport {
  nodeId: string;
  jobId: string;
  leaseId: string;
  exitCode: number;
  runtimeMs: number;
  error?: string;
  outOfMemory?: boolean;
  /** The agent's own measure; `cpuSeconds`, `gpuSeconds` and `gbSeconds` replace the metered estimate. */
  usage?: Record<string, number>;
}

/** Leases an instance remembers for their results' checks: a few MiB at most. */
const LEASES_REMEMBERED = 20_000;

const RUNNING_JOBS = `coalesce((SELECT array_agg(a.job_id ORDER BY a.assigned_at) FROM job_attempts a
  WHERE a.agent_id = agents.id AND a.ended_at IS NULL), '{}') AS running_jobs`;

export function createAgentsService({
  db,
  workflows,
  transitions,
  notifier,
  credentials,
  dataKeys,
  config,
  log,
}: AgentsDeps) {
  const lostAfterMs = config.durations.agentLostAfterMs;
  const liveness = livenessStamps(db);

  const { requireNode, requireWorkingNode } = nodeAccess(db);

  const { wakePolls, wake, markRemoved, removeRegisteredBy, wakeRemoved } = nodeRemoval({
    db,
    workflows,
    credentials,
    log,
  });

  async function getAgent(id: string): Promise<Agent> {
    const row = await db('agents').where({ id }).first('*', db.raw(RUNNING_JOBS), db.raw(agentSilence()));
    return agentFromRow(row, lostAfterMs);
  }

  const waiters = new PollWaiters(notifier, (jobId) => isClaimable(db, jobId));
  const handedLeases = new HandedLeases(LEASES_REMEMBERED);
  const stops = stopLists(db);
  const waitingPolls = handedPolls(waiters, stops);
  return {
    requireWorkingNode,

    whyWaiting: whyWaitingIn(db, lostAfterMs),

    /** One agent of the caller's workspace. */
    async get(principal: Principal, id: string): Promise<Agent> {
      return getAgent((await requireNode(principal, id)).id);
    },

    /**
     * A new node of the caller's workspace, or, with a managed-pool key, a managed-pool agent
     * (src/agents/registration.ts).
     */
    register: (principal: Principal, body: Registration) => registerNode(db, principal, body, config.limits),

    /** Records liveness for the node and the jobs it names; answers drain and what to stop. */
    async heartbeat(principal: Principal, body: { nodeId: string; runningJobs: string[] }) {
      // A node key heartbeating for its own node (every heartbeat of a fleet) needs no lookup
      // first: the node is in the key's workspace. Anyone else is checked as for any node call.
      if (principal.kind !== 'node' || principal.agentId !== body.nodeId) await requireNode(principal, body.nodeId);
      const running = [...new Set(body.runningJobs)];
      if (running.length === 0) {
        const touched = await liveness.stamp(body.nodeId, principal.workspaceId);
        if (!touched) throw notFound('node');
        return { drain: touched.drain, cancel: [] };
      }
      let drain = false;
      const keep = await db.transaction(async (trx) => {
        const [touched] = await trx('agents')
          .where({ id: body.nodeId, workspace_id: principal.workspaceId })
          .whereNull('deregistered_at')
          .update({ last_heartbeat_at: trx.fn.now() })
          .returning(['drain', 'pool']);
        if (!touched) throw notFound('node');
        drain = touched.drain;
        return heartbeatAttempts(
          trx,
          { id: body.nodeId, workspace_id: principal.workspaceId, pool: touched.pool },
          running,
        );
      });
      return { drain, cancel: running.filter((id) => !keep.has(id)) };
    },

    /** A poll of the job's workspace waiting here that takes hand-offs (src/jobs/hand-off.ts). */
    waitingPolls,

    /** The instance is stopping: waiting polls answer now, and none waits from here on. */
    stopPolls: () => waiters.close(),

    /** How many polls this instance holds (waiting or claiming). */
    pollsHere: () => waiters.size,

    poll: createPoll({
      db,
      dataKeys,
      transitions,
      waiters,
      emptyClaims: new EmptyClaims<IdleNode>(config.limits.pollClaimSkipMaxMs).listen(notifier),
      config,
      workflows,
      log,
      requireNode: requireWorkingNode,
      handedLeases,
      stops,
    }),

    /** Applies an agent's terminal report; repeated reports answer the same, stale leases get 409. */
    async result(principal: Principal, report: ResultReport): Promise<Job> {
      // A lease this instance handed out needs no read: what the read checks was fixed by the hand-out.
      const handed = handedLeases.take(report.leaseId, report, principal.workspaceId);
      const [node] = handed
        ? [{ ...handed.node, job_workspace_id: handed.jobWorkspaceId, attempt_agent_id: handed.node.id }]
        : await resultRead(db, [report.nodeId, principal.workspaceId, report.jobId, report.leaseId]);
      if (!node) throw notFound('node');
      // As requireNode checks it; a removed node may still report what it ran.
      if (principal.kind === 'node' && principal.agentId !== node.id)
        throw new AppError('auth.forbidden', 'This node key belongs to another node');
      if (!node.job_workspace_id) throw notFound('job');
      if (node.attempt_agent_id && node.attempt_agent_id !== node.id) throw notAssigned();
      const written = await transitions.result(report.jobId, node.job_workspace_id, {
        leaseId: report.leaseId,
        agentId: node.id,
        exitCode: report.exitCode,
        runtimeMs: report.runtimeMs,
        error: report.error,
        ...(report.outOfMemory && { outOfMemory: true }),
        ...(reportedUsage(report.usage) && { usage: reportedUsage(report.usage) }),
      });
      // Its resources are free again: a waiting poll of a node with a capacity may now fit a job it passed over.
      if (node.capacity) await wakePolls(node);
      return jobFromRow(written ?? (await db('jobs').where({ id: report.jobId }).first(db.raw(JOB_COLUMNS))));
    },

    async drain(
      principal: Principal,
      body: { nodeId: string; enable: boolean; deadlineSeconds?: number },
    ): Promise<Agent> {
      const node = await requireNode(principal, body.nodeId);
      await db.transaction(async (trx) => {
        await trx('agents')
          .where({ id: node.id })
          .update({
            drain: body.enable,
            drain_deadline_at:
              body.enable && body.deadlineSeconds !== undefined
                ? trx.raw(`now() + make_interval(secs => ?)`, [body.deadlineSeconds])
                : null,
          });
        const details = {
          enable: body.enable,
          ...(body.deadlineSeconds !== undefined && { deadlineSeconds: body.deadlineSeconds }),
        };
        await appendAudit(trx, {
          ...auditBy(principal),
          action: 'agent.drain',
          target: { type: 'agent', id: node.id },
          details,
        });
      });
      await wake(node);
      return getAgent(node.id);
    },

    /**
     * Removes the agent: its node keys stop at once (on every instance before the answer), it is
     * no longer listed and takes no work, and each job it runs is requeued now as a new attempt
     * that is not an agent loss. The row stays, marked: attempts and the audit log name it.
     */
    async deregister(principal: Principal, id: string): Promise<void> {
      const node = await requireNode(principal, id);
      const removed = await db.transaction((trx) => markRemoved(trx, principal, trx('agents').where({ id: node.id })));
      if (removed.length === 0) throw notFound('node'); // removed meanwhile by another call
      await credentials.settle();
      await wake(node);
    },

    /** Inside a member's removal, the agents registered through that user's credentials (src/agents/node-removal.ts). */
    removeRegisteredBy,

    /** After the removal committed: every instance refuses the node keys, each node's jobs are requeued now. */
    wakeRemoved,

    async list(principal: Principal, page: PageRequest) {
      const q = db('agents').where({ workspace_id: principal.workspaceId }).whereNull('deregistered_at');
      if (page.cursor) q.where('id', '<', decodeCursor(page.cursor, 'agent', page.cursorParam));
      const rows = await q
        .orderBy('id', 'desc')
        .limit(page.limit + 1)
        .select('*', db.raw(RUNNING_JOBS), db.raw(agentSilence()));
      const out = pageOf(rows, page.limit, (r) => agentFromRow(r, lostAfterMs));
      return { nodes: out.items, nextCursor: out.nextCursor };
    },

    /** Issues a new node key; every earlier key of the node stops working at once. */
    async rotateKey(principal: Principal, body: { nodeId: string }) {
      const node = await requireNode(principal, body.nodeId);
      const key = await db.transaction(async (trx) => {
        const created = await createApiKey(trx, {
          workspaceId: node.workspace_id,
          name: `node ${node.name}`,
          kind: 'node',
          agentId: node.id,
        });
        await revokeNodeKeys(trx, node.id, created.id);
        await appendAudit(trx, {
          ...auditBy(principal),
          action: 'agent.rotate_key',
          target: { type: 'agent', id: node.id },
          details: { keyId: created.id },
        });
        return created;
      });
      await credentials.settle();
      return { nodeId: node.id, apiKey: key.key };
    },
  };
}

export type AgentsService = ReturnType<typeof createAgentsService>;
