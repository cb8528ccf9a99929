import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * A secret made once and kept in `file` (mode 0600), outside production where none is configured:
 * the one there when `valid`, else `made`. It appears only as a whole file (a complete temporary
 * file linked into place), so processes starting together on one data folder (stack:prod's APIs
 * and workers) never read a half-written one; the first link wins and the others read it.
 */
export async function keptSecret(file: string, made: string, valid: (saved: string) => boolean): Promise<string> {
  const read = () =>
    fs.readFile(file, 'utf8').then(
      (s) => s.trim(),
      () => '',
    );
  const saved = await read();
  if (valid(saved)) return saved;
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, `${made}\n`, { mode: 0o600 });
  try {
    await fs.link(tmp, file);
    return made;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return read();
  } finally {
    await fs.rm(tmp, { force: true });
  }
}
