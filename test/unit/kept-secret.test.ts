import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keptSecret } from '../../src/crypto/kept-secret';

// Secrets kept in the data folder outside production: processes starting together (stack:prod's
// two APIs and two workers) must all end up with the one secret, never a half-written file.

describe('a secret kept in the data folder', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-secret-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const valid = (s: string) => s.length === 44;

  it('is made once however many take it at once: each gets the one on disk, mode 0600, no temporary file left', async () => {
    const file = path.join(dir, 'nested', 'webhook-secret-key');
    const made = Array.from({ length: 40 }, (_, i) => Buffer.alloc(32, i).toString('base64'));
    const got = await Promise.all(made.map((m) => keptSecret(file, m, valid)));
    const onDisk = fs.readFileSync(file, 'utf8').trim();
    assert.ok(made.includes(onDisk));
    assert.deepEqual(new Set(got), new Set([onDisk]));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['webhook-secret-key']);
  });

  it('keeps the one already there, and replaces nothing it cannot read as valid', async () => {
    const file = path.join(dir, 'jwt-secret');
    const first = await keptSecret(file, Buffer.alloc(32, 1).toString('base64'), valid);
    assert.equal(await keptSecret(file, Buffer.alloc(32, 2).toString('base64'), valid), first);
    fs.writeFileSync(path.join(dir, 'broken'), 'short\n');
    assert.equal(await keptSecret(path.join(dir, 'broken'), Buffer.alloc(32, 3).toString('base64'), valid), 'short');
  });
});
