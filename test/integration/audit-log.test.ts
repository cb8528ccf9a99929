// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { v0, v0ok } from '../support/v0';
import { team } from '../support/team';

type Row = { action: string; outcome: string; actor_id: string; actor_type: string; target_id: string };
const entriesOf = async (workspaceId: string): Promise<Row[]> =>
  testEnv().db('audit_log').where({ workspace_id: workspaceId }).orderBy('id');
const brief = (rows: Row[]) =>
  rows.map((r) => `${r.action} ${r.outcome} ${r.actor_type}:${r.actor_id} -> ${r.target_id}`);

describe('the audit log', () => {
  it('records every change once with its actor, every refused attempt as denied, and nothing for a change rolled back', async () => {
    const { ws, owner, admin, member } = await team();
    const at = { headers: { 'X-Compute-Workspace': ws.id } };
    await v0ok('PATCH', `/workspaces/${ws.id}`, { token: admin.token, body: { name: 'renamed' } });
    assert.equal(
      (await v0('PATCH', `/workspaces/${ws.id}`, { token: member.token, body: { name: 'no' } })).status,
      403,
    );
    const token = await v0ok('POST', '/tokens', { token: owner.token, ...at, body: { name: 'ci' } });
    await v0ok('DELETE', `/tokens/${token.id}`, { token: admin.token, ...at, status: 204 });
    await v0ok('DELETE', `/tokens/${token.id}`, { token: admin.token, ...at, status: 204 }); // no change, no entry
    await v0ok('PATCH', `/workspaces/${ws.id}/members/${member.user.id}`, {
      token: admin.token,
      body: { role: 'member' },
    }); // no change, no entry
    // Refused by the rules after the role check passed: rolled back, no entry.
    assert.equal(
      (
        await v0('PATCH', `/workspaces/${ws.id}/members/${owner.user.id}`, {
          token: owner.token,
          body: { role: 'member' },
        })
      ).status,
      409,
    );
    assert.equal((await v0('GET', `/workspaces/${ws.id}/audit`, { token: member.token })).status, 403);
    await v0ok('DELETE', `/workspaces/${ws.id}/members/${member.user.id}`, { token: admin.token });

    assert.deepEqual(brief(await entriesOf(ws.id)), [
      `workspace.create success user:${owner.user.id} -> ${ws.id}`,
      `member.add success user:${owner.user.id} -> ${admin.user.id}`,
      `member.add success user:${owner.user.id} -> ${member.user.id}`,
      `workspace.update success user:${admin.user.id} -> ${ws.id}`,
      `workspace.update denied user:${member.user.id} -> ${ws.id}`,
      `token.create success user:${owner.user.id} -> ${token.id}`,
      `token.revoke success user:${admin.user.id} -> ${token.id}`,
      `audit.read denied user:${member.user.id} -> ${ws.id}`,
      `member.remove success user:${admin.user.id} -> ${member.user.id}`,
    ]);
    // A login is an entry of the user's personal workspace.
    const fresh = await login();
    assert.deepEqual(brief(await entriesOf(fresh.user.workspaceId)), [
      `auth.login success user:${fresh.user.id} -> ${fresh.user.id}`,
    ]);
    const [entry] = (await v0ok('GET', `/workspaces/${fresh.user.workspaceId}/audit`, { token: fresh.token })).items;
    assert.deepEqual(Object.keys(entry).sort(), [
      'action',
      'actor',
      'at',
      'details',
      'id',
      'ip',
      'outcome',
      'target',
      'userAgent',
      'workspaceId',
    ]);
    assert.deepEqual(entry.actor, { type: 'user', id: fresh.user.id, email: fresh.user.email });
    assert.match(entry.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(entry.ip);
  });

  it('cannot be changed or removed, by the service’s own database role either', async () => {
    const { ws } = await team();
    const db = testEnv().db;
    const before = await entriesOf(ws.id);
    await assert.rejects(db('audit_log').where({ workspace_id: ws.id }).update({ outcome: 'denied' }), /append-only/);
    await assert.rejects(db('audit_log').where({ workspace_id: ws.id }).delete(), /append-only/);
    await assert.rejects(db.raw('TRUNCATE audit_log'), /append-only/);
    assert.deepEqual(await entriesOf(ws.id), before);
  });

  it('filters and pages, and the JSONL export holds the same entries, oldest first, line by line', async () => {
    const { ws, owner, admin } = await team();
    for (let i = 0; i < 5; i++)
      await v0ok('PATCH', `/workspaces/${ws.id}`, {
        token: i % 2 ? owner.token : admin.token,
        body: { name: `n${i}` },
      });
    const paged: Array<{ id: string; action: string; at: string }> = [];
    let pageToken: string | null = null;
    do {
      const page: { items: typeof paged; nextPageToken: string | null } = await v0ok(
        'GET',
        `/workspaces/${ws.id}/audit?pageSize=2${pageToken ? `&pageToken=${pageToken}` : ''}`,
        { token: owner.token },
      );
      paged.push(...page.items);
      pageToken = page.nextPageToken;
    } while (pageToken);
    assert.equal(paged.length, 3 + 5);
    const exported = await v0('GET', `/workspaces/${ws.id}/audit?format=jsonl`, { token: owner.token });
    assert.match(exported.headers.get('content-type') ?? '', /^application\/jsonl/);
    const lines = (exported.body as string)
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepEqual(lines, [...paged].reverse());

    const byAdmin = await v0ok(
      'GET',
      `/workspaces/${ws.id}/audit?actor=${admin.user.id}&action=workspace.update&action=member.add`,
      { token: owner.token },
    );
    assert.equal(byAdmin.items.length, 3);
    const adds = await v0ok('GET', `/workspaces/${ws.id}/audit?action=member.add&targetId=${admin.user.id}`, {
      token: owner.token,
    });
    assert.equal(adds.items.length, 1);
    const since = paged[2].at;
    const recent = await v0ok('GET', `/workspaces/${ws.id}/audit?since=${encodeURIComponent(since)}`, {
      token: owner.token,
    });
    assert.ok(recent.items.length >= 3 && recent.items.length < paged.length);
    const none = await v0ok('GET', `/workspaces/${ws.id}/audit?until=2000-01-01T00:00:00.000Z`, { token: owner.token });
    assert.equal(none.items.length, 0);
    const bad = await v0('GET', `/workspaces/${ws.id}/audit?since=yesterday&format=csv`, { token: owner.token });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.errors.map((e: { path: string }) => e.path).sort(), ['format', 'since']);
  });

  it('exports 100 000 entries from a cursor: the API’s memory grows by far less than the export', async function () {
    this.timeout(120_000);
    const { ws, owner } = await team();
    const db = testEnv().db;
    await db.raw(
      `INSERT INTO audit_log (id, workspace_id, actor_type, actor_id, action, target_type, target_id, outcome, details)
       SELECT 'aud_' || lpad(to_hex(g), 26, '0'), ?, 'system', 'bulk', 'job.submit', 'job', 'job_' || g, 'success', '{"note": "bulk entry for the export test"}'
       FROM generate_series(1, 100000) AS g`,
      [ws.id],
    );
    // What the process holds, not the garbage it has yet to collect: a full collection before
    // each sample (the API serving the export runs in this process).
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const held = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const baseline = held();
    let peak = baseline;
    // A full collection of the suite's heap takes tens of milliseconds: sampled every 250 ms, it
    // leaves the export most of the loop, and an export loaded whole would be held far longer.
    const sampler = setInterval(() => {
      peak = Math.max(peak, held());
    }, 250);
    let bytes = 0;
    let lines = 0;
    try {
      const res = await fetch(`${testEnv().url}/v0/workspaces/${ws.id}/audit?format=jsonl`, {
        headers: { Authorization: `Bearer ${owner.token}` },
      });
      assert.equal(res.status, 200);
      let tail = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        const text = tail + Buffer.from(chunk).toString();
        const parts = text.split('\n');
        tail = parts.pop()!;
        for (const part of parts) {
          JSON.parse(part);
          lines++;
        }
      }
      assert.equal(tail, '');
    } finally {
      clearInterval(sampler);
    }
    assert.equal(lines, 100_000 + 3);
    const grewMiB = (peak - baseline) / 2 ** 20;
    const exportMiB = bytes / 2 ** 20;
    console.log(`      export ${exportMiB.toFixed(1)} MiB; live heap at most +${grewMiB.toFixed(1)} MiB while it ran`);
    // Loaded whole, the rows alone would hold more than the export's size.
    assert.ok(
      grewMiB < exportMiB / 4,
      `the live heap grew ${grewMiB.toFixed(1)} MiB for a ${exportMiB.toFixed(1)} MiB export`,
    );
  });
});
