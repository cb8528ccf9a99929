import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadToolsDir } from '../src/config';
import { ensurePythonTool } from '../src/stack/python-venv';

// `npm run clients:python`: regenerates the Python client's generated layer
// (clients/python/compute_api) from clients/openapi.json with openapi-python-client, installed
// by the project into its tools folder. `--check` writes nothing and fails when it is stale.

const ROOT = path.resolve(__dirname, '..');
export const GENERATED = path.join(ROOT, 'clients/python/compute_api');

/** The generated layer as openapi-python-client writes it now, in a temporary folder. */
export async function generatePythonClient(log: (msg: string) => void = () => undefined): Promise<string> {
  const python = await ensurePythonTool('openapi-python-client', loadToolsDir(), log);
  const bin = path.dirname(python);
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'compute-pyclient-')), 'compute_api');
  await promisify(execFile)(
    path.join(bin, 'openapi-python-client'),
    [
      'generate',
      '--path',
      path.join(ROOT, 'clients/openapi.json'),
      '--meta',
      'none',
      '--config',
      path.join(ROOT, 'clients/python/generator.yaml'),
      '--output-path',
      out,
    ],
    // Its post hooks run the venv's ruff.
    { env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
  );
  return out;
}

/** Every file under `dir`, relative, with its content. */
export function filesOf(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== '__pycache__') walk(full);
      } else files.set(path.relative(dir, full), fs.readFileSync(full, 'utf8'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return files;
}

/** The files that differ between two trees (present in one only, or with other content). */
export function differences(a: Map<string, string>, b: Map<string, string>): string[] {
  return [...new Set([...a.keys(), ...b.keys()])].filter((f) => a.get(f) !== b.get(f)).sort();
}

async function main() {
  const fresh = await generatePythonClient((msg) => process.stderr.write(`${msg}\n`));
  const stale = differences(filesOf(fresh), filesOf(GENERATED));
  if (process.argv.includes('--check')) {
    if (stale.length) {
      process.stderr.write(
        `clients/python/compute_api is out of date (${stale.length} files); run npm run clients:python\n`,
      );
      process.exitCode = 1;
    }
  } else {
    fs.rmSync(GENERATED, { recursive: true, force: true });
    fs.cpSync(fresh, GENERATED, { recursive: true });
    process.stdout.write(`wrote clients/python/compute_api (${filesOf(GENERATED).size} files)\n`);
  }
  fs.rmSync(path.dirname(fresh), { recursive: true, force: true });
}

if (require.main === module) void main();
