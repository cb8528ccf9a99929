import { keyIdOf, open, seal } from '../crypto/aead';

// Endpoint signing secrets at rest (WEBHOOK_SECRET_KEYS): AES-256-GCM under an operator key, as
// `v1:<key id>:<iv>:<ciphertext and tag>` (base64). The first key seals; any listed key opens, so
// keys rotate. The endpoint's id is authenticated with it: a value copied to another row fails.

export interface SecretBox {
  /** The id of the key new values are sealed with. */
  readonly currentKeyId: string;
  seal(secret: string, endpointId: string): string;
  /** The secret; a clear `whsec_` value (stored before sealing existed) is returned as it is. */
  open(stored: string, endpointId: string): string;
  /** Whether `stored` is sealed with the current key (else sealStoredSecrets seals it again). */
  isCurrent(stored: string): boolean;
}

const VERSION = 'v1';

export { keyIdOf };

export function createSecretBox(keys: Buffer[]): SecretBox {
  if (keys.length === 0) throw new Error('at least one webhook secret key is needed');
  const byId = new Map<string, Buffer>();
  for (const key of keys) {
    if (key.length !== 32) throw new Error('a webhook secret key is 32 bytes');
    const id = keyIdOf(key);
    if (!byId.has(id)) byId.set(id, key);
  }
  const currentKeyId = keyIdOf(keys[0]);
  const aadOf = (endpointId: string) => `webhook:${endpointId}`;

  return {
    currentKeyId,

    seal(secret, endpointId) {
      const { iv, data } = seal(byId.get(currentKeyId)!, secret, aadOf(endpointId));
      return [VERSION, currentKeyId, iv.toString('base64'), data.toString('base64')].join(':');
    },

    open(stored, endpointId) {
      if (stored.startsWith('whsec_')) return stored;
      const [version, keyId, iv, sealed, ...rest] = stored.split(':');
      if (version !== VERSION || rest.length || !iv || !sealed)
        throw new Error(`webhook ${endpointId}: its stored secret is not in a known form`);
      const key = byId.get(keyId);
      if (!key)
        throw new Error(
          `webhook ${endpointId}: its secret is sealed with key ${keyId}, which WEBHOOK_SECRET_KEYS does not list`,
        );
      const opened = open(
        key,
        { iv: Buffer.from(iv, 'base64'), data: Buffer.from(sealed, 'base64') },
        aadOf(endpointId),
      );
      // Not this endpoint's, or changed: never sign with what came out.
      if (!opened)
        throw new Error(
          `webhook ${endpointId}: its stored secret does not open (altered, cut short, or another endpoint's)`,
        );
      return opened.toString('utf8');
    },

    isCurrent(stored) {
      return stored.startsWith(`${VERSION}:${currentKeyId}:`);
    },
  };
}
