import { z } from 'zod';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import { type AnyOperation, operation, PageQuery, asPage, pageSchema } from './operations';
import { agentB } from './render';

const AgentId = z.object({ id: z.string().max(64) });
export const AgentB = z
  .object({
    id: z.string(),
    name: z.string(),
    labels: z.record(z.string(), z.string()),
    state: z.enum(['ONLINE', 'DRAINING', 'DRAINED', 'OFFLINE']),
    version: z.string().nullable(),
    region: z.string().nullable().meta({
      description:
        'The managed-pool region the agent serves (an agent registered with an operator’s managed-pool key); null for the workspace’s own agents',
    }),
    lastHeartbeatAt: z.string(),
    currentJobs: z.array(z.string()),
    drainDeadlineAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'Agent' });

export function agentsOperations(services: Services): AnyOperation[] {
  const { agents } = services;
  return [
    operation({
      method: 'get',
      path: '/v0/agents',
      tag: 'agents',
      summary: "The active workspace's agents, newest first",
      action: 'agent.read',
      scope: 'active',
      authorizes: () => ({ type: 'workspace', id: 'agents' }),
      query: z.strictObject(PageQuery),
      response: pageSchema(AgentB),
      handle: async (ctx, { query }) => {
        const page = await agents.list(principalOf(ctx), {
          limit: query.pageSize,
          cursor: query.pageToken,
          cursorParam: 'pageToken',
        });
        return asPage({ items: page.nodes.map(agentB), nextCursor: page.nextCursor });
      },
    }),
    operation({
      method: 'get',
      path: '/v0/agents/{id}',
      tag: 'agents',
      summary: 'One agent: labels, state, last heartbeat, the jobs it runs now',
      action: 'agent.read',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'agent', id: params.id }),
      params: AgentId,
      response: AgentB,
      handle: async (ctx, { params }) => agentB(await agents.get(principalOf(ctx), params.id)),
    }),
    operation({
      method: 'post',
      path: '/v0/agents/{id}:drain',
      tag: 'agents',
      summary:
        'Drain (admin): the agent gets no new jobs; past `deadlineSeconds` its unfinished jobs are requeued. 200 with the agent',
      action: 'agent.drain',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'agent', id: params.id }),
      params: AgentId,
      body: z
        .strictObject({
          deadlineSeconds: z
            .number()
            .int()
            .min(0)
            .max(7 * 86_400)
            .optional(),
        })
        .default({}),
      response: AgentB,
      handle: async (ctx, { params, body }) =>
        agentB(
          await agents.drain(principalOf(ctx), {
            nodeId: params.id,
            enable: true,
            deadlineSeconds: body.deadlineSeconds,
          }),
        ),
    }),
    operation({
      method: 'delete',
      path: '/v0/agents/{id}',
      tag: 'agents',
      summary:
        'Remove the agent (admin): its node key stops at once, it is no longer listed, and each job it runs is requeued at once as a new attempt ' +
        '(not counted as an agent loss); its late result is 409 `job.not_assigned`. 204; 404 once removed. ' +
        'The agent process may register again with its agent key and is then a new agent',
      action: 'agent.deregister',
      scope: 'active',
      authorizes: ({ params }) => ({ type: 'agent', id: params.id }),
      params: AgentId,
      status: 204,
      handle: async (ctx, { params }) => {
        await agents.deregister(principalOf(ctx), params.id);
      },
    }),
  ];
}
