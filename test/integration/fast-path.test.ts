// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { httpFastRequests, httpRequests } from '../../src/metrics/registry';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { newWorkspace, ok, registerNode } from '../support/http';

// The fast path (src/http/fast-path.ts) answers the agent protocol's calls and jobs/retrieve
// without Koa's layers. Every request here goes to two API instances on the same stack, one with
// the fast path and one without (API_FAST_PATH=false), and their answers must be the same:
// status, headers and body, good requests and bad, with the same side effects (audit entries,
// the requests counted). The fast one's counter shows which requests it took.

interface Sent {
  path: string;
  key?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  method?: string;
}

interface Answer {
  status: number;
  statusText: string;
  headers: Record<string, string>;
  text: string;
}

const VOLATILE = new Set(['date', 'keep-alive', 'connection']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function send(baseUrl: string, s: Sent): Promise<Answer> {
  const res = await fetch(`${baseUrl}${s.path}`, {
    method: s.method ?? 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(s.key && { 'X-API-Key': s.key }),
      ...s.headers,
    },
    body: s.body,
  });
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!VOLATILE.has(name)) headers[name] = value;
  });
  return { status: res.status, statusText: res.statusText, headers, text: await res.text() };
}

/** What may differ between two instances: a generated request ID, the budget each leased, their own address. */
function comparable(a: Answer, hosts: string[]): Answer {
  const headers = { ...a.headers };
  const generated = headers['x-request-id'];
  if (generated !== undefined && UUID.test(generated)) headers['x-request-id'] = '<generated>';
  for (const name of ['ratelimit-remaining', 'ratelimit-reset']) {
    if (headers[name] === undefined) continue;
    assert.match(headers[name], /^\d+$/, `${name}: ${headers[name]}`);
    headers[name] = '<n>';
  }
  let text = a.text;
  if (generated && UUID.test(generated)) text = text.split(generated).join('<generated>');
  for (const host of hosts) text = text.split(host).join('<host>');
  if (headers['content-length'] !== undefined) headers['content-length'] = String(Buffer.byteLength(text));
  return { ...a, headers, text };
}

const fastCount = async () => (await httpFastRequests.get()).values.reduce((n, v) => n + v.value, 0);
const counted = async (route: string, status: string) =>
  (await httpRequests.get()).values.find(
    (v) => v.labels.route === route && v.labels.method === 'POST' && v.labels.status === status,
  )?.value ?? 0;
const auditCount = async (workspaceId: string) =>
  Number((await testEnv().db('audit_log').where({ workspace_id: workspaceId }).count({ n: '*' }))[0].n);

describe('the fast path answers as the framework does', function () {
  this.timeout(120_000);
  const apiWith = apisPerTest();

  it('the same status, headers and body for good and bad requests, taking only what it can answer the same', async () => {
    const fast = (await apiWith({ API_FAST_PATH: 'true' })).url!;
    const slow = (await apiWith({ API_FAST_PATH: 'false' })).url!;
    const hosts = [fast, slow].map((u) => new URL(u).host);
    const { workspaceId, key } = await newWorkspace('fast-path');
    const other = await newWorkspace('fast-path-other');
    const node = await registerNode(key, { fast: 'path' });
    const otherNode = await registerNode(key, { fast: 'other' });
    const queued = (
      await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'true', selector: { queue: 'nobody' } }, key)
    ).job_id as string;
    const foreign = (await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'true' }, other.key))
      .job_id as string;
    const session = await login();

    /** Sends `s` to both; `taken`: whether the fast instance's fast path took it. */
    const same = async (what: string, s: Sent, taken: boolean) => {
      const before = await fastCount();
      const a = await send(fast, s);
      const tookIt = (await fastCount()) - before;
      const b = await send(slow, s);
      assert.equal(tookIt, taken ? 1 : 0, `${what}: taken by the fast path: ${tookIt}`);
      assert.deepEqual(comparable(a, hosts), comparable(b, hosts), `${what}: fast and framework answers differ`);
      return a;
    };
    const retrieve = '/api/compute/jobs/retrieve';
    const json = (v: unknown) => JSON.stringify(v);

    // The queued job's read, with something changed.
    const reading = (change: Partial<Sent> = {}): Sent => ({
      path: retrieve,
      key,
      body: json({ job_id: queued }),
      ...change,
    });
    const withHeaders = (headers: Record<string, string>) => reading({ headers });
    const taken: Array<[string, Sent]> = [
      ['a request ID sent', withHeaders({ 'X-Request-Id': 'fast-1' })],
      ['a request ID unusable', withHeaders({ 'X-Request-Id': 'has space' })],
      ['another workspace’s job', reading({ body: json({ job_id: foreign }) })],
      ['no such key', reading({ key: 'ck_live_nonesuch' })],
      ['a missing field', reading({ body: json({}) })],
      ['an extra field', reading({ body: json({ job_id: queued, more: 1 }) })],
      ['an array', reading({ body: '[]' })],
      ['not JSON', reading({ body: '{"job_id":' })],
      ['a JSON string (strict)', reading({ body: '"x"' })],
      ['a prototype key', reading({ body: '{"job_id":"x","__proto__":{"a":1}}' })],
      ['a byte-order mark', reading({ body: `\ufeff${json({ job_id: queued })}` })],
      ['an empty body', reading({ body: '' })],
      ['a NUL in a field', reading({ body: json({ job_id: 'job_\u0000' }) })],
      ['invalid UTF-8', reading({ body: Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) })],
      ['a workspace header of its own', withHeaders({ 'X-Compute-Workspace': workspaceId })],
      ['another workspace named', withHeaders({ 'X-Compute-Workspace': other.workspaceId })],
      ['a malformed workspace header', withHeaders({ 'X-Compute-Workspace': 'nope' })],
      ['the type in capitals', withHeaders({ 'Content-Type': 'Application/JSON; Charset=UTF-8' })],
    ];
    const read = await same('retrieve', reading(), true);
    assert.equal(read.status, 200);
    assert.equal(JSON.parse(read.text).payload.job_id, queued);
    for (const [what, sent] of taken) await same(what, sent, true);

    // Left to the framework: another credential, another media type, an encoding, a query, a method.
    const declined: Array<[string, Sent]> = [
      ['a session token', reading({ key: undefined, headers: { Authorization: `Bearer ${session.token}` } })],
      ['no credential', reading({ key: undefined })],
      ['another charset', withHeaders({ 'Content-Type': 'application/json; charset=latin1' })],
      ['text/plain', withHeaders({ 'Content-Type': 'text/plain' })],
      ['gzip', reading({ body: gzipSync(json({ job_id: queued })), headers: { 'Content-Encoding': 'gzip' } })],
      ['a query string', reading({ path: `${retrieve}?x=1` })],
      ['a trailing slash', reading({ path: `${retrieve}/` })],
      ['GET', reading({ method: 'GET', body: undefined })],
      [
        'past the body limit',
        reading({ body: json({ job_id: queued, pad: 'x'.repeat(testEnv().config.limits.bodyBytes) }) }),
      ],
    ];
    for (const [what, sent] of declined) await same(what, sent, false);

    // A refusal is audited once on either path.
    const audited = await auditCount(workspaceId);
    await same('a node key reading a job', { path: retrieve, key: node.nodeKey, body: json({ job_id: queued }) }, true);
    assert.equal((await auditCount(workspaceId)) - audited, 2, 'one audit entry on each path');

    // Counted under the route's pattern on either path.
    const okBefore = await counted(retrieve, '200');
    await same('counted', { path: retrieve, key, body: json({ job_id: queued }) }, true);
    assert.equal((await counted(retrieve, '200')) - okBefore, 2);

    const heartbeat = '/api/compute/nodes/heartbeat';
    await same('heartbeat', { path: heartbeat, key: node.nodeKey, body: json({ nodeId: node.nodeId }) }, true);
    await same(
      'heartbeat of another node',
      { path: heartbeat, key: node.nodeKey, body: json({ nodeId: otherNode.nodeId }) },
      true,
    );
    await same('heartbeat with a user key', { path: heartbeat, key, body: json({ nodeId: node.nodeId }) }, true);
    await same(
      'heartbeat naming a job it does not run',
      { path: heartbeat, key: node.nodeKey, body: json({ nodeId: node.nodeId, runningJobs: [queued] }) },
      true,
    );

    const poll = '/api/compute/nodes/poll';
    await same(
      'an empty poll',
      { path: poll, key: node.nodeKey, body: json({ nodeId: node.nodeId, waitSeconds: 0 }) },
      true,
    );
    await same(
      'a poll past maxJobs',
      { path: poll, key: node.nodeKey, body: json({ nodeId: node.nodeId, maxJobs: 101 }) },
      true,
    );
    await same(
      'a poll for another node',
      { path: poll, key: node.nodeKey, body: json({ nodeId: otherNode.nodeId }) },
      true,
    );

    // A job each, handed out by each path: the same answer but for the job's own IDs.
    const assigned: Array<{ job_id: string; leaseId: string }> = [];
    const polled: string[] = [];
    for (const base of [fast, slow]) {
      await ok('/compute/jobs/submit', { type: 'COMMAND', command: 'true', selector: { fast: 'path' } }, key);
      const a = await send(base, {
        path: poll,
        key: node.nodeKey,
        body: json({ nodeId: node.nodeId, waitSeconds: 10 }),
      });
      assert.equal(a.status, 200, a.text);
      const job = JSON.parse(a.text).payload.jobs[0] as { job_id: string; leaseId: string };
      assigned.push(job);
      // The upload URL's signature and expiry are the job's own too.
      const text = comparable(a, hosts).text.split(job.job_id).join('<job>').split(job.leaseId).join('<lease>');
      polled.push(text.replace(/expires=\d+/, 'expires=<t>').replace(/sig=[\w-]+/, 'sig=<sig>'));
    }
    assert.deepEqual(JSON.parse(polled[0]), JSON.parse(polled[1]), 'a job handed out');

    const logs = '/api/compute/nodes/logs';
    const lines = (from: number) =>
      [0, 1, 2].map((i) => ({ seq: from + i, stream: 'stdout', line: `line ${from + i}` }));
    for (const [i, job] of assigned.entries()) {
      const body = json({ nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines: lines(10 * i) });
      const first = await send([fast, slow][i], { path: logs, key: node.nodeKey, body });
      assert.equal(first.text.includes('"accepted":3'), true, first.text);
    }
    await same(
      'logs for a stale lease',
      {
        path: logs,
        key: node.nodeKey,
        body: json({ nodeId: node.nodeId, job_id: assigned[0].job_id, leaseId: 'lease_nonesuch', lines: lines(0) }),
      },
      true,
    );

    // The node's own read refuses a push for another node, or for no node at all, on either path.
    const pushFor = (nodeId: string) =>
      json({ nodeId, job_id: assigned[0].job_id, leaseId: assigned[0].leaseId, lines: lines(20) });
    const forbidden = await same(
      'logs for another node',
      { path: logs, key: node.nodeKey, body: pushFor(otherNode.nodeId) },
      true,
    );
    assert.equal(forbidden.status, 403, forbidden.text);
    assert.match(forbidden.text, /auth\.forbidden/);
    const missing = await same(
      'logs for no node',
      { path: logs, key: node.nodeKey, body: pushFor('node_nonesuch') },
      true,
    );
    assert.equal(missing.status, 404, missing.text);

    const result = '/api/compute/nodes/result';
    const report = (job: { job_id: string; leaseId: string }) =>
      json({ nodeId: node.nodeId, job_id: job.job_id, leaseId: job.leaseId, exitCode: 0, runtimeMs: 5 });
    const first = await send(fast, { path: result, key: node.nodeKey, body: report(assigned[0]) });
    assert.equal(first.status, 200, first.text);
    await same('a result reported again', { path: result, key: node.nodeKey, body: report(assigned[0]) }, true);
    await same(
      'a result for a stale lease',
      { path: result, key: node.nodeKey, body: report({ job_id: assigned[1].job_id, leaseId: 'lease_nonesuch' }) },
      true,
    );
  });
});
