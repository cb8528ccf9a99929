import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
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
  const file = path.join(config.dataDir, list.file);
  const saved = Buffer.from(
    await fs.readFile(file, 'utf8').then(
      (s) => s.trim(),
      () => '',
    ),
    'base64',
  );
  if (saved.length === KEY_BYTES) return [saved];
  const key = randomBytes(KEY_BYTES);
  await fs.mkdir(config.dataDir, { recursive: true });
  try {
    await fs.writeFile(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    return [key];
  } catch (err) {
    // Another process on the same data folder made it first: use theirs.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return [Buffer.from((await fs.readFile(file, 'utf8')).trim(), 'base64')];
  }
}
