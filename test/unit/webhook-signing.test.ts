import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadToolsDir } from '../../src/config';
import { ensurePythonTool, PYTHON_TOOL_VERSIONS } from '../../src/stack/python-venv';
import { newWebhookSecret, signedHeaders } from '../../src/webhooks/signing';
import { verifyWithReference } from '../support/reference-webhooks';

// Our Standard Webhooks signatures (CONTRACT §7), checked by the reference Python library rather
// than by the npm package that made them.
describe('webhook signing', () => {
  const body = JSON.stringify({
    id: 'evt_1',
    type: 'job.created',
    createdAt: new Date().toISOString(),
    data: { job: { id: 'job_1', state: 'QUEUED' } },
  });
  const eventId = () => `evt_${randomBytes(8).toString('hex')}`;

  before(async function () {
    this.timeout(300_000); // the first run installs the reference library
    await ensurePythonTool('standardwebhooks', loadToolsDir(), (msg) => console.error(`      [python] ${msg}`));
  });

  it('makes secrets of whsec_ and 24 random bytes in base64', () => {
    const secret = newWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 24);
    assert.notEqual(newWebhookSecret(), secret);
  });

  it('signs with one secret so the reference verifies it', async () => {
    const secret = newWebhookSecret();
    const at = new Date();
    const id = eventId();
    const headers = signedHeaders([secret], id, at, body);
    assert.equal(headers['webhook-id'], id);
    assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
    assert.deepEqual(await verifyWithReference({ secret, headers, body }), { ok: true });
  });

  it('signs with both secrets during a rotation, each verifying alone, and no other', async () => {
    const [current, previous] = [newWebhookSecret(), newWebhookSecret()];
    const headers = signedHeaders([current, previous], eventId(), new Date(), body);
    for (const secret of [current, previous])
      assert.deepEqual(await verifyWithReference({ secret, headers, body }), { ok: true });
    const other = await verifyWithReference({ secret: newWebhookSecret(), headers, body });
    assert.equal(other.ok, false);
    assert.match(other.error ?? '', /No matching signature/);
  });

  it('puts exactly one v1 signature per secret in the header', () => {
    const secrets = [newWebhookSecret(), newWebhookSecret()];
    for (const n of [1, 2]) {
      const signature = signedHeaders(secrets.slice(0, n), eventId(), new Date(), body)['webhook-signature'];
      assert.equal(signature.match(/v1,/g)?.length, n, signature);
      assert.ok(
        signature.split(' ').every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s)),
        signature,
      );
    }
  });

  it('is refused by the reference for a changed body', async () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders([secret], eventId(), new Date(), body);
    assert.equal((await verifyWithReference({ secret, headers, body: body.replace('QUEUED', 'QUEUEd') })).ok, false);
  });

  it('is refused by the reference when signed more than 5 minutes ago', async () => {
    const secret = newWebhookSecret();
    const headers = signedHeaders([secret], eventId(), new Date(Date.now() - 10 * 60_000), body);
    const stale = await verifyWithReference({ secret, headers, body });
    assert.equal(stale.ok, false);
    assert.match(stale.error ?? '', /too old/);
  });
});

describe('pinned Python tools', () => {
  const version = PYTHON_TOOL_VERSIONS.standardwebhooks;

  it('reuses a finished venv without installing again', async () => {
    const lines: string[] = [];
    const python = await ensurePythonTool('standardwebhooks', loadToolsDir(), (msg) => lines.push(msg));
    // A build says so before anything else: no line, nothing installed.
    assert.deepEqual(lines, []);
    assert.equal(python, path.join(path.resolve(loadToolsDir()), `py-standardwebhooks-${version}`, 'bin', 'python'));
  });

  it('rebuilds a venv folder that has no completion marker', async function () {
    this.timeout(120_000);
    const toolsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'py-tools-'));
    try {
      const venv = path.join(toolsDir, `py-standardwebhooks-${version}`);
      await ensurePythonTool('standardwebhooks', toolsDir);
      assert.equal(await fs.readFile(path.join(venv, '.complete'), 'utf8'), `standardwebhooks==${version}\n`);

      // What a build that died before its marker leaves: a venv that may even import.
      await fs.rm(path.join(venv, '.complete'));
      await fs.writeFile(path.join(venv, 'left-over'), '');
      const lines: string[] = [];
      const python = await ensurePythonTool('standardwebhooks', toolsDir, (msg) => lines.push(msg));
      assert.ok(
        lines.some((l) => l.startsWith('creating a Python venv')),
        lines.join('\n'),
      );
      await assert.rejects(fs.access(path.join(venv, 'left-over')));
      assert.equal(await fs.readFile(path.join(venv, '.complete'), 'utf8'), `standardwebhooks==${version}\n`);
      assert.equal(python, path.join(venv, 'bin', 'python'));
    } finally {
      await fs.rm(toolsDir, { recursive: true, force: true });
    }
  });
});
