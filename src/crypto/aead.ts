import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

// AES-256-GCM, the one cipher of everything we keep sealed (webhook secrets, job env, workspace
// data keys, Temporal payloads): a fresh 96-bit IV per value, the tag after the ciphertext, and
// what the value belongs to as authenticated data, so a value copied elsewhere does not open.

export const IV_BYTES = 12;
export const TAG_BYTES = 16;
export const KEY_BYTES = 32;

export interface Sealed {
  iv: Buffer;
  /** Ciphertext, then the 16-byte tag. */
  data: Buffer;
}

export function seal(key: Buffer, plaintext: Buffer | string, aad: string): Sealed {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = typeof plaintext === 'string' ? cipher.update(plaintext, 'utf8') : cipher.update(plaintext);
  return { iv, data: Buffer.concat([body, cipher.final(), cipher.getAuthTag()]) };
}

/** The plaintext, or undefined when the value was altered, is another's (`aad`), or the key is wrong. */
export function open(key: Buffer, sealed: Sealed, aad: string): Buffer | undefined {
  if (sealed.data.length < TAG_BYTES || sealed.iv.length !== IV_BYTES) return undefined;
  const decipher = createDecipheriv('aes-256-gcm', key, sealed.iv);
  decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(sealed.data.subarray(sealed.data.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.data.subarray(0, sealed.data.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}

/** The first 8 hex characters of the key's SHA-256: names a key in stored values, reveals nothing of it. */
export const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);
