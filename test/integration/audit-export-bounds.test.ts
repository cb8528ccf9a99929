// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import http from 'node:http';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';
import { v0, v0ok } from '../support/v0';
import { team } from '../support/team';

const PER_CREDENTIAL = 2;
const PER_INSTANCE = 10;
// Fewer connections than exports an instance admits: an export that held one while its client
// does not read would leave the other routes none.
const POOL = 4;
// About 1.2 KiB a line, some 30 MiB an export: far more than a client that never reads takes into
// its socket buffers, so such an export stays open.
const BULK = 25_000;

interface Opened {
  status: number;
  headers: http.IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body?: any;
  req: http.ClientRequest;
  res?: http.IncomingMessage;
}

const sockets: http.ClientRequest[] = [];

/** Asks for an export on a connection of its own; admitted (200), its response is left unread. */
function openExport(baseUrl: string, workspaceId: string, token: string): Promise<Opened> {
  return new Promise((resolve) => {
    const req = http.get(`${baseUrl}/v0/workspaces/${workspaceId}/audit?format=jsonl`, {
      headers: { Authorization: `Bearer ${token}` },
      agent: false,
    });
    sockets.push(req);
    // No answer at all (the connection dropped first) is an outcome to compare, not a crash.
    req.on('error', (err) => resolve({ status: 0, headers: {}, body: String(err), req }));
    req.on('response', (res) => {
      res.on('error', () => undefined);
      if (res.statusCode === 200) return resolve({ status: 200, headers: res.headers, req, res });
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: JSON.parse(text), req, res }));
    });
  });
}

/** Reads what is left of a response until its connection closes. */
function readRest(res: http.IncomingMessage): Promise<{ lines: string[]; complete: boolean }> {
  return new Promise((resolve) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (d: string) => (text += d));
    res.on('close', () => resolve({ lines: text.split('\n').filter(Boolean), complete: res.complete }));
    res.resume();
  });
}

/** Older than any real entry, in an ID range of their own (other tests insert bulk entries too). */
async function bulkEntries(workspaceId: string): Promise<void> {
  await testEnv().db.raw(
    `INSERT INTO audit_log (id, workspace_id, actor_type, actor_id, action, target_type, target_id, outcome, details)
     SELECT 'aud_00e' || lpad(to_hex(g), 23, '0'), ?, 'system', 'bulk', 'job.submit', 'job', 'job_' || g, 'success', jsonb_build_object('pad', repeat('x', 1000))
     FROM generate_series(1, ?) AS g`,
    [workspaceId, BULK],
  );
}

const idsOf = async (workspaceId: string): Promise<string[]> =>
  (await testEnv().db('audit_log').where({ workspace_id: workspaceId }).orderBy('id').select('id')).map(
    (r: { id: string }) => r.id,
  );

describe('the audit export is bounded and holds no database connection while its client stalls', function () {
  this.timeout(180_000);
  let api: ServiceProcess;
  let ws: { id: string };
  let owner: { token: string };
  const asOwner = () => ({ token: owner.token, headers: { 'X-Compute-Workspace': ws.id } });
  const newToken = async (name: string): Promise<{ id: string; token: string }> =>
    v0ok('POST', '/tokens', { ...asOwner(), body: { name, role: 'admin' } });

  before(async () => {
    const config = testEnv().configWith({
      DB_POOL_MAX: String(POOL),
      AUDIT_EXPORTS_PER_CREDENTIAL: String(PER_CREDENTIAL),
      AUDIT_EXPORTS_PER_INSTANCE: String(PER_INSTANCE),
    });
    api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
    ({ ws, owner } = await team());
    await bulkEntries(ws.id);
  });
  afterEach(() => {
    for (const req of sockets.splice(0)) req.destroy();
  });
  after(() => api?.stop());

  it('admits 2 exports per credential and 10 per instance (429 past either), and the other routes still answer while 25 clients never read', async () => {
    const tokens = await Promise.all(Array.from({ length: 12 }, (_, i) => newToken(`export-${i}`)));
    // The first token three times (its third is over its own bound), then the others two at a time.
    const plan = [tokens[0], tokens[0], tokens[0], ...tokens.slice(1).flatMap((t) => [t, t])];
    const opened: Opened[] = [];
    for (const t of plan) opened.push(await openExport(api.url!, ws.id, t.token));

    const refused = (limit: number) => ({ status: 429, code: 'rate_limit.exceeded', limit, retryAfter: true });
    const want = [200, 200, refused(PER_CREDENTIAL), ...Array(8).fill(200), ...Array(14).fill(refused(PER_INSTANCE))];
    const got = opened.map((o) =>
      o.status === 200
        ? 200
        : {
            status: o.status,
            code: o.body?.code,
            limit: o.body?.details?.limit,
            retryAfter: Number(o.headers['retry-after']) > 0,
          },
    );
    assert.deepEqual(got, want);

    // Ten exports open, none read: the pool (4 connections) still serves everyone else.
    for (let i = 0; i < 5; i++) {
      const jobs = await v0('GET', '/jobs', { token: owner.token, baseUrl: api.url! });
      assert.equal(jobs.status, 200, JSON.stringify(jobs.body));
    }
    // ... and the ten are still open (not finished by being buffered whole): the instance is still full.
    const another = await openExport(api.url!, ws.id, (await newToken('another')).token);
    assert.equal(another.status, 429);
    assert.equal(another.body.details.limit, PER_INSTANCE);

    // Clients that leave give their slots back: the first token is admitted again.
    for (const o of opened) o.req.destroy();
    const again = await waitFor('a slot given back', async () => {
      const o = await openExport(api.url!, ws.id, tokens[0].token);
      if (o.status === 200) return o;
      o.req.destroy();
      return false;
    });
    again.req.destroy();
  });

  it('cuts an export short when its token is revoked', async () => {
    const total = (await idsOf(ws.id)).length;
    const token = await newToken('revoked');
    const open = await openExport(api.url!, ws.id, token.token);
    assert.equal(open.status, 200);
    await v0ok('DELETE', `/tokens/${token.id}`, { ...asOwner(), status: 204 });
    await waitFor(
      'the export instance to refuse the token',
      async () => (await v0('GET', '/jobs', { token: token.token, baseUrl: api.url! })).status === 401,
    );
    const rest = await readRest(open.res!);
    assert.equal(rest.complete, false, 'the response is cut, not completed');
    assert.ok(
      rest.lines.length > 0 && rest.lines.length < total,
      `${rest.lines.length} of ${total} lines before the cut`,
    );
  });

  it('exports every entry there was at its start, oldest first, while the log grows', async () => {
    const atStart = await idsOf(ws.id);
    const res = await fetch(`${api.url!}/v0/workspaces/${ws.id}/audit?format=jsonl`, {
      headers: { Authorization: `Bearer ${owner.token}` },
    });
    assert.equal(res.status, 200);
    // Entries appended during the export are after its bound.
    for (let i = 0; i < 3; i++)
      await v0ok('PATCH', `/workspaces/${ws.id}`, { token: owner.token, body: { name: `during ${i}` } });
    const lines = (await res.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; workspaceId: string });
    assert.equal(lines.length, atStart.length);
    assert.deepEqual(
      lines.map((l) => l.id),
      atStart,
    );
    assert.ok(lines.every((l) => l.workspaceId === ws.id));
    assert.equal((await idsOf(ws.id)).length, atStart.length + 3);
  });
});
