import { createHmac, timingSafeEqual } from 'node:crypto';
import { AppError } from '../shared/errors';

// Self-authorizing artifact URLs (CONTRACT §6): the query carries an expiry and an HMAC over
// method, path, expiry and, for an agent's upload, its lease. Nothing else is needed to use one.

export const ID_PLACEHOLDER = '{id}';

export interface UrlSigner {
  /** The query (without `?`) that authorizes `method` on `path` until `expiresAt` (epoch seconds). */
  sign(input: { method: 'PUT' | 'GET'; path: string; expiresAt: number; lease?: string }): string;
  /**
   * Checks a request against its query. An upload URL that names a lease was signed as a template
   * (the agent fills in the id), so its last path segment is not part of what was signed.
   * Throws 403 auth.signature_invalid or auth.url_expired; returns the lease it carries.
   */
  verify(input: { method: string; path: string; query: Record<string, unknown>; nowMs?: number }): { lease?: string };
}

const invalid = (message: string) => new AppError('auth.signature_invalid', message);

export function createUrlSigner(secret: string): UrlSigner {
  // A key of its own, so a URL signature can never double as anything else signed with the secret.
  const key = createHmac('sha256', secret).update('artifact-url-v1').digest();
  const mac = (method: string, path: string, expires: string, lease: string) =>
    createHmac('sha256', key).update(`${method}\n${path}\n${expires}\n${lease}`).digest();

  return {
    sign({ method, path, expiresAt, lease }) {
      const expires = String(Math.floor(expiresAt));
      const sig = mac(method, path, expires, lease ?? '').toString('base64url');
      const query = new URLSearchParams({ expires, ...(lease ? { lease } : {}), sig });
      return query.toString();
    },

    verify({ method, path, query, nowMs = Date.now() }) {
      const one = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : undefined);
      const expires = one('expires');
      const sig = one('sig');
      const lease = one('lease');
      if (!expires || !sig) throw invalid('This URL is not signed: expires and sig are required');
      const signedMethod = method === 'HEAD' ? 'GET' : method;
      const signedPath = lease ? path.replace(/[^/]*$/, ID_PLACEHOLDER) : path;
      const expected = mac(signedMethod, signedPath, expires, lease ?? '');
      const given = Buffer.from(sig, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        throw invalid('The URL signature does not match its method, path, expiry or lease');
      }
      if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= nowMs) {
        throw new AppError('auth.url_expired', 'This URL has expired', {
          expiredAt: new Date(Number(expires) * 1000).toISOString(),
        });
      }
      return { lease };
    },
  };
}
