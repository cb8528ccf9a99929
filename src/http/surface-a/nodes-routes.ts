import type Router from '@koa/router';
import { z } from 'zod';
import type { Services } from '../../services';
import { principalOf } from '../authenticate';
import type { CredentialSlots } from '../credential-slots';
import type { RenderLate } from '../late-answer';
import { type SurfaceAMount, operationGroup } from './operations';
import { PollReply } from './poll-reply';
import { jobA, nodeA } from './render';
import {
  AssignedJob,
  DrainRequest,
  HeartbeatRequest,
  JobA,
  ListNodesRequest,
  LogsRequest,
  NodeA,
  NodeRef,
  PollRequest,
  RegisterRequest,
  ResultRequest,
} from './schemas';

const KeyResponse = z.object({ nodeId: z.string(), apiKey: z.string() });

export function nodesRoutes(services: Services, at: SurfaceAMount, polls: CredentialSlots, late: RenderLate): Router {
  const { router, mount } = operationGroup(at, 'nodes');
  const { agents, logs } = services;
  const uploadTemplate = services.artifacts.uploadTemplate.bind(services.artifacts);

  mount({
    path: '/register',
    action: 'agent.register',
    managedKey: true,
    summary:
      "An agent's first contact (agent or user key, or an operator's managed-pool key); returns the node key used from then on. " +
      'With a managed-pool key the node joins the managed pool of `region` (default `local`) and takes `pool: managed` jobs of every workspace ' +
      'in that region, never `self` jobs; with any other key it takes its workspace’s `self` jobs only, and a `region` is 400 request.invalid',
    body: RegisterRequest,
    response: KeyResponse.extend({ heartbeatIntervalSeconds: z.number().int() }),
    handle: (ctx, body) => agents.register(principalOf(ctx), body),
  });
  mount({
    path: '/heartbeat',
    action: 'agent.work',
    nodeKey: true,
    fast: true,
    summary: 'Keep-alive every 30 s naming running jobs; answers drain and the jobs to stop',
    body: HeartbeatRequest,
    response: z.object({ drain: z.boolean(), cancel: z.array(z.string()) }),
    handle: (ctx, body) => agents.heartbeat(principalOf(ctx), body),
  });
  mount({
    path: '/poll',
    action: 'agent.work',
    nodeKey: true,
    fast: true,
    summary:
      'Take assigned jobs; waitSeconds (0..30) long-polls until a job is submitted (up to 2 s more when a job is being handed to it as its wait ends). At most POLLS_PER_CREDENTIAL polls per credential at once (429 past it)',
    body: PollRequest,
    response: z.object({ jobs: z.array(AssignedJob), cancel: z.array(z.string()) }),
    // A poll that has to wait is answered outside the middleware chain (LateAnswer): a waiting
    // poll then holds its request and its wait, not the chain's frames (see bench:fleet). What
    // fails before the wait is answered in the chain, as any request's error is.
    handle: (ctx, body) =>
      new Promise((resolve, reject) => {
        const { credentialId } = principalOf(ctx);
        polls.take(credentialId);
        const reply = new PollReply(ctx, { resolve, reject }, polls, credentialId, late, uploadTemplate);
        agents.poll(principalOf(ctx), body, reply);
      }),
  });
  mount({
    path: '/logs',
    action: 'agent.work',
    nodeKey: true,
    fast: true,
    summary:
      "Push a batch of log lines for the node's current lease (idempotent on seq). The agent's seq orders and deduplicates this lease's lines; " +
      "readers get the job's own numbering (1, 2, … across every attempt), which the log stream's ids, Last-Event-ID and afterSeq use",
    body: LogsRequest,
    response: z.object({ accepted: z.number().int(), duplicates: z.number().int() }),
    handle: async (ctx, body) => {
      const node = await agents.requireWorkingNode(principalOf(ctx), body.nodeId);
      return logs.push(node, { jobId: body.job_id, leaseId: body.leaseId, lines: body.lines });
    },
  });
  mount({
    path: '/result',
    action: 'agent.work',
    nodeKey: true,
    fast: true,
    summary: "Report an attempt's terminal result (idempotent); 409 job.not_assigned for a stale lease",
    body: ResultRequest,
    response: JobA,
    handle: async (ctx, body) => {
      const job = await agents.result(principalOf(ctx), { ...body, jobId: body.job_id });
      return jobA(job);
    },
  });
  mount({
    path: '/drain',
    action: 'agent.drain',
    nodeKey: true,
    summary: 'Stop handing the node new jobs; past deadlineSeconds its unfinished jobs are requeued',
    body: DrainRequest,
    response: NodeA,
    handle: async (ctx, body) => nodeA(await agents.drain(principalOf(ctx), body)),
  });
  mount({
    path: '/list',
    action: 'agent.read',
    summary: "Nodes of the caller's workspace, newest first",
    body: ListNodesRequest,
    response: z.object({ nodes: z.array(NodeA), nextCursor: z.string().nullable() }),
    handle: async (ctx, page) => {
      const out = await agents.list(principalOf(ctx), page);
      return { nodes: out.nodes.map(nodeA), nextCursor: out.nextCursor };
    },
  });
  mount({
    path: '/rotate-key',
    action: 'agent.rotate_key',
    nodeKey: true,
    summary: "Replace the node's key; the old one stops working at once",
    body: NodeRef,
    response: KeyResponse,
    handle: (ctx, body) => agents.rotateKey(principalOf(ctx), body),
  });
  return router;
}
