import { createHash, randomUUID } from 'node:crypto';
import { SignJWT, jwtVerify, errors as joseErrors } from 'jose';

// Session tokens: HS256 only (pinned, so `none` or an RSA/HMAC confusion cannot be presented),
// with `iss`, `aud`, `exp` and `kid` always checked. `kid` names the secret, so a rotated-out
// secret keeps verifying the tokens it signed until they expire.

export interface TokenClaims {
  userId: string;
  workspaceId: string;
  email: string;
  /** Set by verify: when the token expires, epoch ms. */
  expiresAt?: number;
  /** Set by verify: the session's id (`jti`), by which sign-out revokes it; absent in tokens issued before. */
  sessionId?: string;
}

export interface TokenIssuerOptions {
  secret: string;
  previousSecret?: string;
  issuer: string;
  audience: string;
  ttlSeconds: number;
}

const ALG = 'HS256';
const kidOf = (secret: string) => `k${createHash('sha256').update(secret).digest('hex').slice(0, 12)}`;

export function createTokenIssuer(opts: TokenIssuerOptions) {
  const encode = (s: string) => new TextEncoder().encode(s);
  const keys = new Map<string, Uint8Array>([[kidOf(opts.secret), encode(opts.secret)]]);
  if (opts.previousSecret) keys.set(kidOf(opts.previousSecret), encode(opts.previousSecret));
  const signingKid = kidOf(opts.secret);

  return {
    async issue(claims: TokenClaims): Promise<{ token: string; expiresAt: string }> {
      const now = Math.floor(Date.now() / 1000);
      const exp = now + opts.ttlSeconds;
      const token = await new SignJWT({ ws: claims.workspaceId, email: claims.email })
        .setProtectedHeader({ alg: ALG, kid: signingKid, typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(opts.issuer)
        .setAudience(opts.audience)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .setJti(randomUUID())
        .sign(keys.get(signingKid)!);
      return { token, expiresAt: new Date(exp * 1000).toISOString() };
    },

    /** The token's claims, or null for anything forged, expired, mis-addressed or malformed. */
    verify: (token: string): Promise<TokenClaims | null> => verifyAt(token),

    /**
     * The claims of a token we signed that has expired (null for any other): its holder's refusal
     * is worth an audit entry, a forgery's is not. The signature and every other claim still hold.
     */
    async expired(token: string): Promise<TokenClaims | null> {
      const claims = await verifyAt(token, new Date(0));
      return claims && Date.now() >= claims.expiresAt! ? claims : null;
    },
  };

  async function verifyAt(token: string, currentDate?: Date): Promise<TokenClaims | null> {
    try {
      const { payload } = await jwtVerify(
        token,
        (header) => {
          const key = header.kid ? keys.get(header.kid) : undefined;
          if (!key) throw new joseErrors.JWKSNoMatchingKey();
          return key;
        },
        {
          algorithms: [ALG],
          issuer: opts.issuer,
          audience: opts.audience,
          requiredClaims: ['exp', 'iat', 'sub'],
          currentDate,
        },
      );
      if (typeof payload.ws !== 'string' || typeof payload.email !== 'string') return null;
      return {
        userId: payload.sub!,
        workspaceId: payload.ws,
        email: payload.email,
        expiresAt: payload.exp! * 1000,
        ...(typeof payload.jti === 'string' && { sessionId: payload.jti }),
      };
    } catch (err) {
      if (err instanceof joseErrors.JOSEError || err instanceof TypeError) return null;
      throw err;
    }
  }
}

export type TokenIssuer = ReturnType<typeof createTokenIssuer>;
