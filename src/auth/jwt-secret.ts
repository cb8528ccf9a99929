import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { ApiConfig } from '../config';

/**
 * The JWT signing secret: JWT_SECRET when set (production requires it, src/config/production.ts:
 * every API instance must share it). Otherwise one is made once and kept in the data folder, so
 * sessions survive a restart of `npm run dev`.
 */
export async function resolveJwtSecret(config: Pick<ApiConfig, 'auth' | 'dataDir'>): Promise<string> {
  if (config.auth.jwtSecret) return config.auth.jwtSecret;
  const file = path.join(config.dataDir, 'jwt-secret');
  const saved = await fs.readFile(file, 'utf8').then(
    (s) => s.trim(),
    () => '',
  );
  if (saved.length >= 32) return saved;
  const secret = randomBytes(32).toString('base64url');
  await fs.mkdir(config.dataDir, { recursive: true });
  try {
    await fs.writeFile(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (err) {
    // Another process on the same data folder made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return (await fs.readFile(file, 'utf8')).trim();
  }
}
