import { execFile } from 'node:child_process';
import path from 'node:path';
import { loadToolsDir } from '../../src/config';
import { ensurePythonTool } from '../../src/stack/python-venv';

// Our signing checked by code we did not write: the reference Python `standardwebhooks` library,
// in a pinned venv in the tools folder.

const SCRIPT = path.join(__dirname, 'standardwebhooks-reference.py');

let python: Promise<string> | undefined;
const referencePython = () =>
  (python ??= ensurePythonTool('standardwebhooks', loadToolsDir(), (msg) =>
    process.stderr.write(`      [python] ${msg}\n`),
  ).catch((err: unknown) => {
    python = undefined; // let a later call try again
    throw err;
  }));

/**
 * Verifies one delivery with the Python reference library (installed on first use). Like any
 * receiver, it refuses a `webhook-timestamp` more than 5 minutes from now.
 */
export async function verifyWithReference(o: {
  secret: string;
  headers: Record<string, string>;
  body: string;
}): Promise<{ ok: boolean; error?: string }> {
  const bin = await referencePython();
  const out = await new Promise<string>((resolve, reject) => {
    const child = execFile(bin, [SCRIPT], { timeout: 30_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`the reference verifier failed: ${stderr || err.message}`)) : resolve(stdout),
    );
    child.stdin!.end(JSON.stringify(o));
  });
  const result = JSON.parse(out) as { ok: boolean; error?: string };
  // The payload the script also prints stays out, so callers can compare the result to { ok: true }.
  return result.ok ? { ok: true } : { ok: false, error: result.error };
}
