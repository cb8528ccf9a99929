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
 * An operator's key list: the variable's keys when set. Production refuses to start without them
 * (every API and worker must share them). Elsewhere one key is made once and kept in the data
 * folder, so `npm run dev` and the tests need no setup and what was sealed survives a restart.
 */
export async function resolveOperatorKeys(config: Pick<SharedSettings, 'env' | 'dataDir'>, list: KeyList): Promise<Buffer[]> {
  if (list.configured?.length) return list.configured;
  if (config.env === 'production') {
    throw new Error(`${list.variable} is required in production (base64 of 32 random bytes, e.g. \`openssl rand -base64 32\`, the same on every API and worker)`);
  }
  const file = path.join(config.dataDir, list.file);
  const saved = Buffer.from(await fs.readFile(file, 'utf8').then((s) => s.trim(), () => ''), 'base64');
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
