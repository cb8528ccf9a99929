import fs from 'node:fs/promises';
import path from 'node:path';

// The CLI's state (the session, the active workspace) sits in its config folder, readable by its
// owner only: the session holds a credential.

/** Writes `value` as JSON to `name` in the folder, owner-only; returns the file's path. */
export async function writePrivateJson(configDir: string, name: string, value: unknown): Promise<string> {
  await fs.mkdir(configDir, { recursive: true, mode: 0o700 });
  const file = path.join(configDir, name);
  await fs.writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  // writeFile's mode applies only to a file it creates.
  await fs.chmod(file, 0o600);
  return file;
}

/** The file's JSON, or null when it is missing or unreadable. */
export async function readJson<T>(configDir: string, name: string): Promise<T | null> {
  const text = await fs.readFile(path.join(configDir, name), 'utf8').catch(() => null);
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}

/** Removes the file; false when there was none. */
export const removeFile = (configDir: string, name: string): Promise<boolean> =>
  fs.rm(path.join(configDir, name)).then(
    () => true,
    () => false,
  );
