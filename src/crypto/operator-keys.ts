import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { keptSecret } from './kept-secret';
import type { SharedSettings } from '../config';
import { KEY_BYTES } from './aead';

interface KeyList {
  /** The keys the environment gave, first the current one. */
  configured?: Buffer[];
  /** Its variable, named in the refusal. */
  variable: string;
  /** Where a development or test run keeps the one it made, in the data folder. */
  file: string;
}

/**
 * An operator's key list: the variable's keys when set (production requires them,
 * src/config/production.ts: every API and worker must share them). Otherwise one key is made once
 * and kept in the data folder, so `npm run dev` and the tests need no setup and what was sealed
 * survives a restart.
 */
export async function resolveOperatorKeys(config: Pick<SharedSettings, 'dataDir'>, list: KeyList): Promise<Buffer[]> {
  if (list.configured?.length) return list.configured;
  const kept = await keptSecret(
    path.join(config.dataDir, list.file),
    randomBytes(KEY_BYTES).toString('base64'),
    (saved) => Buffer.from(saved, 'base64').length === KEY_BYTES,
  );
  return [Buffer.from(kept, 'base64')];
}
