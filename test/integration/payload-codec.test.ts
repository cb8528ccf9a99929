import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import type { Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { keyIdOf } from '../../src/crypto/aead';
import { startServiceProcess } from '../../src/runtime/service-process';
import { ensureTool } from '../../src/stack/tools';
import { createPayloadCodec, jobWorkspaces } from '../../src/temporal/payload-codec';
import { META_SCOPE } from '../../src/temporal/payload-format';
import { agentPool, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { suiteDataKeys } from '../support/data-keys';
import { quietLog, testEnv } from '../support/env';
import { ok } from '../support/http';
import { TEMPORAL_UI } from '../support/portal';
import { suiteClient, suiteDataConverter } from '../support/temporal-client';
import { legacySealed } from '../support/sealed-payloads';
import { v0ok } from '../support/v0';

// Temporal holds only ciphertext: a job's command and env appear nowhere in its history as
// Temporal keeps it, and the codec endpoint opens a payload only for an admin of its workspace.

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

/** The run's history as `temporal workflow show --output json` prints it: no codec in the way. */
async function rawHistory(workflowId: string): Promise<string> {
  const bin = await ensureTool('temporal', testEnv().config.toolsDir);
  const { stdout } = await promisify(execFile)(
    bin,
    [
      'workflow',
      'show',
      '--workflow-id',
      workflowId,
      '--output',
      'json',
      '--address',
      testEnv().config.temporal.address!,
      '--namespace',
      testEnv().config.temporal.namespace,
    ],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  return stdout;
}

/** Every string of the JSON, and each base64 one decoded, joined: what a reader of the history could see. */
function readable(json: string): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      out.push(v);
      if (/^[A-Za-z0-9+/]+=*$/.test(v) && v.length % 4 === 0) out.push(Buffer.from(v, 'base64').toString('latin1'));
    } else if (v && typeof v === 'object') Object.values(v).forEach(walk);
  };
  walk(JSON.parse(json));
  return out.join('\n');
}

/** Every payload in the history JSON but the search attributes' (readable by design), with where it is. */
function payloadsOf(json: string): Array<JsonPayload & { at: string }> {
  const found: Array<JsonPayload & { at: string }> = [];
  const walk = (v: unknown, at: string) => {
    if (v && typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if (o.metadata && typeof o.metadata === 'object' && 'data' in o) found.push({ ...(o as JsonPayload), at });
      else
        for (const [k, child] of Object.entries(o))
          if (k !== 'searchAttributes' && k !== 'upsertWorkflowSearchAttributesEventAttributes')
            walk(child, `${at}.${k}`);
    }
  };
  walk(JSON.parse(json), '');
  return found;
}

const decodedText = (p: JsonPayload) => Buffer.from(p.data ?? '', 'base64').toString('utf8');
const encodingOf = (p: JsonPayload) => Buffer.from(p.metadata?.encoding ?? '', 'base64').toString('utf8');
const fromJson = (p: JsonPayload): Payload => ({
  metadata: Object.fromEntries(Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64')])),
  data: Buffer.from(p.data ?? '', 'base64'),
});
const toJson = (p: Payload): JsonPayload => ({
  metadata: Object.fromEntries(
    Object.entries(p.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')]),
  ),
  data: Buffer.from(p.data!).toString('base64'),
});

/** The payloads as /codec/decode of the suite's API answers them for `token`. */
async function decodeAt(token: string, payloads: JsonPayload[]): Promise<JsonPayload[]> {
  const res = await fetch(`${testEnv().url}/codec/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ payloads }),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { payloads: JsonPayload[] }).payloads;
}

describe('the payload codec', function () {
  this.timeout(120_000);
  const agents = agentPool();

  it("keeps a job's command and env out of its history as Temporal holds it; the agent still runs them", async () => {
    const owner = await login();
    const key = (await ok('/compute/api-keys/create', { name: 'a', kind: 'agent' }, owner.token)).key as string;
    await agents({ key });
    const marker = `cmdsecret${randomBytes(6).toString('hex')}`;
    const envMarker = `envsecret${randomBytes(6).toString('hex')}`;
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      body: {
        type: 'COMMAND',
        command: `echo ${marker} "$TOKEN"`,
        env: { TOKEN: envMarker },
        labels: { team: 'codec' },
      },
    });
    await waitFor(
      'the job done',
      async () => (await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 })).state === 'SUCCEEDED',
      30_000,
    );
    const { lines } = await v0ok('GET', `/jobs/${job.id}/logs?afterSeq=0`, { token: owner.token, status: 200 });
    assert.equal(lines[0].line, `${marker} ${envMarker}`, 'the agent ran the command with its env');

    const history = await rawHistory(job.id);
    const seen = readable(history);
    assert.ok(!seen.includes(marker), 'the command is in no payload, summary or field of the history');
    assert.ok(!seen.includes(envMarker), 'nor the env');
    const payloads = payloadsOf(history);
    assert.ok(payloads.length >= 4, `the run has payloads (${payloads.length})`);
    assert.deepEqual(
      payloads.filter((p) => encodingOf(p) !== 'binary/encrypted').map((p) => `${p.at}: ${encodingOf(p)}`),
      [],
      'every one sealed',
    );
    assert.ok(
      seen.includes(owner.user.workspaceId) && seen.includes('team'),
      'search attributes stay readable (workspace, labels)',
    );

    // Its sealed history replays with the codec, deterministically.
    const fetched = await (await suiteClient()).workflow.getHandle(job.id).fetchHistory();
    await Worker.runReplayHistory(
      { workflowBundle: testEnv().bundle, replayName: job.id, dataConverter: await suiteDataConverter() },
      fetched,
      job.id,
    );
  });

  it('opens its own payloads, refuses a payload moved to another workspace, passes clear ones through, and decodes across an operator key rotation', async () => {
    const db = testEnv().db;
    const dataKeys = await suiteDataKeys();
    const [key1] = testEnv().config.temporal.codecKeys!;
    const codec = createPayloadCodec({ dataKeys, operatorKeys: [key1], workspaceOf: jobWorkspaces(db).of });
    const a = await login();
    const b = await login();
    const jobA = await v0ok('POST', '/jobs', {
      token: a.token,
      body: { type: 'COMMAND', command: 'true', selector: { nobody: 'here' } },
    });
    const jobB = await v0ok('POST', '/jobs', {
      token: b.token,
      body: { type: 'COMMAND', command: 'true', selector: { nobody: 'here' } },
    });
    const clear = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"hello"') };
    const [sealed] = await codec.encode([clear], { type: 'workflow', namespace: 'default', workflowId: jobA.id });
    assert.equal(Buffer.from(sealed.metadata![META_SCOPE]!).toString(), a.user.workspaceId);
    const [opened] = await codec.decode([sealed], { type: 'workflow', namespace: 'default', workflowId: jobA.id });
    assert.equal(Buffer.from(opened.data!).toString(), '"hello"');
    await assert.rejects(
      codec.decode([sealed], { type: 'workflow', namespace: 'default', workflowId: jobB.id }),
      /reached a run of/,
    );
    const moved = { ...sealed, metadata: { ...sealed.metadata, [META_SCOPE]: Buffer.from(b.user.workspaceId) } };
    assert.equal(await codec.tryOpen(moved), undefined, 'relabelled for another workspace, it does not open');
    assert.deepEqual(await codec.decode([clear]), [clear], 'a payload from before the codec passes through');

    const key2 = randomBytes(32);
    const [system] = await codec.encode([clear], { type: 'workflow', namespace: 'default', workflowId: 'meter' });
    assert.equal(Buffer.from(system.metadata!['encryption-key-id']!).toString(), keyIdOf(key1));
    const rotated = createPayloadCodec({ dataKeys, operatorKeys: [key2, key1], workspaceOf: jobWorkspaces(db).of });
    assert.equal(
      Buffer.from((await rotated.decode([system]))[0].data!).toString(),
      '"hello"',
      'sealed under key 1, opened under [2, 1]',
    );
    const [again] = await rotated.encode([clear], { type: 'workflow', namespace: 'default', workflowId: 'meter' });
    assert.equal(
      Buffer.from(again.metadata!['encryption-key-id']!).toString(),
      keyIdOf(key2),
      'new payloads take the first key',
    );
    const without1 = createPayloadCodec({ dataKeys, operatorKeys: [key2], workspaceOf: jobWorkspaces(db).of });
    await assert.rejects(without1.decode([system]), /does not open/);
    for (const j of [
      [a, jobA],
      [b, jobB],
    ] as const)
      await v0ok('POST', `/jobs/${j[1].id}:cancel`, { token: j[0].token, status: 200 });
  });

  it("refuses a payload relabelled to another run of its workspace, at /codec/decode and in the worker's codec; the audit names the run it was sealed for", async () => {
    const owner = await login();
    const ws = owner.user.workspaceId;
    const [jobA, jobB] = await Promise.all(
      [1, 2].map(() =>
        v0ok('POST', '/jobs', {
          token: owner.token,
          body: { type: 'COMMAND', command: 'echo relabel', selector: { nobody: 'here' } },
        }),
      ),
    );
    const [{ at: _at, ...input }] = payloadsOf(await rawHistory(jobA.id)).filter(
      (p) => encodingOf(p) === 'binary/encrypted',
    );
    const forged = {
      ...input,
      metadata: { ...input.metadata, 'compute-workflow': Buffer.from(jobB.id).toString('base64') },
    };

    const [forgedBack, inputBack] = await decodeAt(owner.token, [forged, input]);
    assert.deepEqual(forgedBack, forged, 'relabelled, it comes back still encoded');
    assert.equal(encodingOf(inputBack), 'json/plain', 'the same payload unchanged opens');
    const entries = await testEnv()
      .db('audit_log')
      .where({ workspace_id: ws, action: 'codec.decode' })
      .select('target_type', 'target_id', 'details');
    assert.deepEqual(
      entries.map((e) => [e.target_type, e.target_id, e.details.workflows, e.details.withoutRun]),
      [['workflow', jobA.id, [jobA.id], 0]],
    );

    const codec = createPayloadCodec({
      dataKeys: await suiteDataKeys(),
      operatorKeys: testEnv().config.temporal.codecKeys!,
      workspaceOf: jobWorkspaces(testEnv().db).of,
    });
    const inB = { type: 'workflow', namespace: 'default', workflowId: jobB.id } as const;
    await assert.rejects(
      codec.decode([fromJson(forged)], inB),
      /does not open/,
      "B's worker refuses the relabelled payload",
    );
    await assert.rejects(
      codec.decode([fromJson(input)], inB),
      new RegExp(`sealed for run ${jobA.id} reached run ${jobB.id}`),
      'and the one moved unchanged',
    );
    for (const job of [jobA, jobB]) await v0ok('POST', `/jobs/${job.id}:cancel`, { token: owner.token, status: 200 });
  });

  it('opens a payload sealed before the run was bound (workspace only), in the worker and at /codec/decode, audited as naming no run', async () => {
    const owner = await login();
    const ws = owner.user.workspaceId;
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      body: { type: 'COMMAND', command: 'true', selector: { nobody: 'here' } },
    });
    const dataKeys = await suiteDataKeys();
    const clear = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"from before"') };
    const old = legacySealed(await dataKeys.of(ws), ws, job.id, clear);

    const codec = createPayloadCodec({
      dataKeys,
      operatorKeys: testEnv().config.temporal.codecKeys!,
      workspaceOf: jobWorkspaces(testEnv().db).of,
    });
    const [opened] = await codec.decode([old], { type: 'workflow', namespace: 'default', workflowId: job.id });
    assert.equal(Buffer.from(opened.data!).toString(), '"from before"');
    const [back] = await decodeAt(owner.token, [toJson(old)]);
    assert.equal(decodedText(back), '"from before"');
    const entries = await testEnv()
      .db('audit_log')
      .where({ workspace_id: ws, action: 'codec.decode' })
      .select('target_type', 'target_id', 'details');
    assert.deepEqual(
      entries.map((e) => [e.target_type, e.target_id, e.details.workflows, e.details.withoutRun]),
      [['workspace', ws, [], 1]],
      'its run label was never authenticated: the entry names none',
    );
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: owner.token, status: 200 });
  });

  it('decodes through /codec/decode for an admin of the workspace only, audited; CORS for the UI origin alone', async () => {
    const api = await startServiceProcess({
      config: testEnv().configWith({ TEMPORAL_UI_URL: TEMPORAL_UI }),
      log: quietLog,
      api: true,
      worker: false,
    });
    try {
      const owner = await login();
      const ws = await v0ok('POST', '/workspaces', { token: owner.token, body: { name: 'codec' } });
      const member = await login();
      await v0ok('POST', `/workspaces/${ws.id}/members`, {
        token: owner.token,
        body: { email: member.user.email, role: 'member' },
      });
      const outsider = await login();
      const marker = `codec${randomBytes(6).toString('hex')}`;
      const job = await v0ok('POST', '/jobs', {
        token: owner.token,
        headers: { 'X-Compute-Workspace': ws.id },
        body: { type: 'COMMAND', command: `echo ${marker}`, selector: { nobody: 'here' } },
      });
      const [{ at: _at, ...input }] = payloadsOf(await rawHistory(job.id)).filter(
        (p) => encodingOf(p) === 'binary/encrypted',
      );
      const decode = async (token: string | undefined, path = '/codec/decode') => {
        const res = await fetch(`${api.url}${path}`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'X-Namespace': 'default',
            ...(token ? { Authorization: `Bearer ${token}` } : {}),
          },
          body: JSON.stringify({ payloads: [input] }),
        });
        assert.equal(res.status, 200);
        return ((await res.json()) as { payloads: JsonPayload[] }).payloads[0];
      };
      const opened = await decode(owner.token);
      assert.equal(encodingOf(opened), 'json/plain');
      assert.match(decodedText(opened), new RegExp(marker), 'the owner reads the input');
      assert.match(
        decodedText(await decode(owner.token, '/codec/default/decode')),
        new RegExp(marker),
        'under the namespace too',
      );
      for (const [who, token] of [
        ['a member', member.token],
        ["another workspace's owner", outsider.token],
        ['no credential', undefined],
      ] as const) {
        assert.deepEqual(await decode(token), input, `${who}: still encoded`);
      }
      const entries = await testEnv()
        .db('audit_log')
        .where({ workspace_id: ws.id, action: 'codec.decode' })
        .select('actor_id', 'target_id', 'details');
      assert.equal(entries.length, 2);
      assert.deepEqual(
        [entries[0].actor_id, entries[0].target_id, entries[0].details.workflows],
        [owner.user.id, job.id, [job.id]],
      );

      const preflight = (origin: string) =>
        fetch(`${api.url}/codec/decode`, {
          method: 'OPTIONS',
          headers: {
            Origin: origin,
            'Access-Control-Request-Method': 'POST',
            'Access-Control-Request-Headers': 'content-type,x-namespace',
          },
        });
      const fromUi = await preflight(TEMPORAL_UI);
      assert.equal(fromUi.status, 204);
      assert.deepEqual(
        [fromUi.headers.get('access-control-allow-origin'), fromUi.headers.get('access-control-allow-credentials')],
        [TEMPORAL_UI, 'true'],
      );
      const fromElsewhere = await preflight('https://evil.example');
      assert.equal(fromElsewhere.status, 403);
      assert.equal(fromElsewhere.headers.get('access-control-allow-origin'), null);
      await v0ok('POST', `/jobs/${job.id}:cancel`, {
        token: owner.token,
        headers: { 'X-Compute-Workspace': ws.id },
        status: 200,
      });
    } finally {
      await api.stop();
    }
  });
});
