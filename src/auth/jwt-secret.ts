import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ApiConfig } from '../config';
import { keptSecret } from '../crypto/kept-secret';

/**
 * The JWT signing secret: JWT_SECRET when set (production requires it, src/config/production.ts:
 * every API instance must share it). Otherwise one is made once and kept in the data folder, so
 * sessions survive a restart of `npm run dev`.
 */
export async function resolveJwtSecret(config: Pick<ApiConfig, 'auth' | 'dataDir'>): Promise<string> {
  if (config.auth.jwtSecret) return config.auth.jwtSecret;
  return keptSecret(
    path.join(config.dataDir, 'jwt-secret'),
    randomBytes(32).toString('base64url'),
    (saved) => saved.length >= 32,
  );
}
