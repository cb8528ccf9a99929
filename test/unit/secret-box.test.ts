import assert from 'node:assert/strict';
import { resolveCodecKeys } from '../../src/crypto/data-keys';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadApiConfig, loadWorkerConfig } from '../../src/config';
import { PRODUCTION_SECRETS } from '../support/settings';
import { createSecretBox, keyIdOf } from '../../src/webhooks/secret-box';
import { resolveWebhookSecretKeys } from '../../src/webhooks/secret-keys';
import { newWebhookSecret } from '../../src/webhooks/signing';

// Webhook signing secrets sealed at rest (WEBHOOK_SECRET_KEYS): AES-256-GCM bound to the endpoint.
describe('webhook secret box', () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
  /** The stored value with one bit of its `part` (2: iv, 3: ciphertext and tag) flipped. */
  const flipped = (stored: string, part: 2 | 3, byte = 0) => {
    const parts = stored.split(':');
    const bytes = Buffer.from(parts[part], 'base64');
    bytes[byte] ^= 0x01;
    parts[part] = bytes.toString('base64');
    return parts.join(':');
  };

  it('seals as v1:<key id>:<iv>:<ciphertext and tag> and opens to the same secret, never storing it', () => {
    const box = createSecretBox([newKey]);
    const secret = newWebhookSecret();
    const stored = box.seal(secret, 'wh_1');
    assert.match(stored, new RegExp(`^v1:${keyIdOf(newKey)}:[A-Za-z0-9+/=]{16}:[A-Za-z0-9+/=]+$`));
    assert.equal(keyIdOf(newKey).length, 8);
    assert.ok(!stored.includes('whsec_') && !stored.includes(secret.slice(6)), stored);
    assert.notEqual(box.seal(secret, 'wh_1'), stored, 'a fresh IV each time');
    assert.equal(box.open(stored, 'wh_1'), secret);
    assert.ok(box.isCurrent(stored));
  });

  it('rotates: the first key seals, any listed key opens, an unlisted one is named', () => {
    const before = createSecretBox([oldKey]);
    const during = createSecretBox([newKey, oldKey]);
    const secret = newWebhookSecret();
    const sealedOld = before.seal(secret, 'wh_1');
    assert.equal(during.open(sealedOld, 'wh_1'), secret);
    assert.equal(during.isCurrent(sealedOld), false, 'due to be sealed again');
    const sealedNew = during.seal(secret, 'wh_1');
    assert.equal(sealedNew.split(':')[1], keyIdOf(newKey));
    assert.ok(during.isCurrent(sealedNew));
    assert.equal(createSecretBox([newKey]).open(sealedNew, 'wh_1'), secret);
    assert.throws(
      () => before.open(sealedNew, 'wh_1'),
      new RegExp(`sealed with key ${keyIdOf(newKey)}, which WEBHOOK_SECRET_KEYS does not list`),
    );
  });

  it("refuses another endpoint's value: the endpoint id is authenticated", () => {
    const box = createSecretBox([newKey]);
    const stored = box.seal(newWebhookSecret(), 'wh_1');
    assert.throws(() => box.open(stored, 'wh_2'), /does not open \(altered, cut short, or another endpoint's\)/);
  });

  it('refuses a changed ciphertext, tag, IV or key id, and values in no known form', () => {
    const box = createSecretBox([newKey, oldKey]);
    const stored = box.seal(newWebhookSecret(), 'wh_1');
    const sealedLength = Buffer.from(stored.split(':')[3], 'base64').length;
    const changed = {
      ciphertext: flipped(stored, 3, 0),
      tag: flipped(stored, 3, sealedLength - 1),
      iv: flipped(stored, 2, 0),
      'key id': stored.replace(`:${keyIdOf(newKey)}:`, `:${keyIdOf(oldKey)}:`),
    };
    for (const [what, value] of Object.entries(changed)) {
      assert.notEqual(value, stored, what);
      assert.throws(() => box.open(value, 'wh_1'), /does not open/, what);
    }
    for (const bad of ['', 'v2:abcd:x:y', 'v1:abcd', `${stored}:extra`, 'plain-text'])
      assert.throws(() => box.open(bad, 'wh_1'), /not in a known form|does not list/, bad);
  });

  it('reads a clear secret stored before sealing existed as it is (sealed again at the next start)', () => {
    const box = createSecretBox([newKey]);
    const legacy = newWebhookSecret();
    assert.equal(box.open(legacy, 'wh_1'), legacy);
    assert.equal(box.isCurrent(legacy), false);
  });

  describe('its keys', () => {
    const dirs: string[] = [];
    const dataDir = () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-secret-keys-'));
      dirs.push(dir);
      return dir;
    };
    after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

    it('takes WEBHOOK_SECRET_KEYS in order, and refuses a key that is not base64 of 32 bytes', async () => {
      const list = [newKey, oldKey].map((k) => k.toString('base64')).join(', ');
      const keys = await resolveWebhookSecretKeys(
        loadWorkerConfig({ ...PRODUCTION_SECRETS, WEBHOOK_SECRET_KEYS: list, COMPUTE_DATA_DIR: dataDir() }),
      );
      assert.deepEqual(keys.map(keyIdOf), [keyIdOf(newKey), keyIdOf(oldKey)]);
      for (const load of [loadApiConfig, loadWorkerConfig]) {
        assert.throws(
          () => load({ WEBHOOK_SECRET_KEYS: randomBytes(16).toString('base64') }),
          /WEBHOOK_SECRET_KEYS: each key must be base64 of 32 bytes/,
        );
        assert.throws(
          () => load({ WEBHOOK_SECRET_KEYS: `${newKey.toString('base64')},not-a-key` }),
          /WEBHOOK_SECRET_KEYS/,
        );
      }
    });

    it('is required in production, and writes nothing there; so is TEMPORAL_CODEC_KEYS, in the same form', async () => {
      const dir = dataDir();
      // Every API and worker refuses to start without them: nothing is resolved, nothing written.
      for (const load of [loadApiConfig, loadWorkerConfig]) {
        const { WEBHOOK_SECRET_KEYS, TEMPORAL_CODEC_KEYS, ...rest } = PRODUCTION_SECRETS;
        assert.throws(
          () => load({ ...rest, TEMPORAL_CODEC_KEYS, COMPUTE_DATA_DIR: dir }),
          /WEBHOOK_SECRET_KEYS is required in production/,
        );
        assert.throws(
          () => load({ ...rest, WEBHOOK_SECRET_KEYS, COMPUTE_DATA_DIR: dir }),
          /TEMPORAL_CODEC_KEYS is required in production/,
        );
      }
      assert.deepEqual(fs.readdirSync(dir), []);
      const list = [newKey, oldKey].map((k) => k.toString('base64')).join(',');
      assert.deepEqual(
        (
          await resolveCodecKeys(
            loadWorkerConfig({ ...PRODUCTION_SECRETS, TEMPORAL_CODEC_KEYS: list, COMPUTE_DATA_DIR: dir }),
          )
        ).map(keyIdOf),
        [keyIdOf(newKey), keyIdOf(oldKey)],
      );
      assert.throws(
        () => loadWorkerConfig({ TEMPORAL_CODEC_KEYS: randomBytes(16).toString('base64') }),
        /TEMPORAL_CODEC_KEYS: each key must be base64 of 32 bytes/,
      );
      assert.throws(
        () => loadWorkerConfig({ ...PRODUCTION_SECRETS, NODE_ENV: 'production', PAYLOAD_CODEC: 'off' }),
        /PAYLOAD_CODEC=off is for benchmarks only/,
      );
      assert.equal(loadWorkerConfig({ ...PRODUCTION_SECRETS, NODE_ENV: 'production' }).temporal.payloadCodec, true);
    });

    it('elsewhere keeps one in the data folder, the same on every start', async () => {
      const dir = dataDir();
      const config = loadWorkerConfig({ NODE_ENV: 'development', COMPUTE_DATA_DIR: path.join(dir, 'data') });
      const [first] = await resolveWebhookSecretKeys(config);
      assert.equal(first.length, 32);
      const [again] = await resolveWebhookSecretKeys(config);
      assert.ok(first.equals(again));
      assert.equal(fs.statSync(path.join(dir, 'data', 'webhook-secret-key')).mode & 0o777, 0o600);
    });
  });
});
