import { childEnvironment } from '../config';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { withLock } from './tools';

// Python tools the tests run, each pinned in a virtual environment of its own in the tools folder:
// `<toolsDir>/py-<tool>-<version>/`. A venv is not relocatable, so unlike ./tools it is built in
// place; the marker file, written last, holds the pinned requirements, and a folder without a
// matching marker is a crashed or outdated build that is removed and built again.

export type PythonTool = 'standardwebhooks' | 'schemathesis' | 'openapi-python-client';

interface PythonToolSpec {
  version: string;
  /** Module imported to check that the venv works. */
  module: string;
}

const PYTHON_TOOLS: Record<PythonTool, PythonToolSpec> = {
  // The reference verifier of the Standard Webhooks spec; has no dependencies.
  standardwebhooks: { version: '1.1.0', module: 'standardwebhooks' },
  // Its CLI is `<venv>/bin/schemathesis` beside the python returned.
  schemathesis: { version: '4.32.5', module: 'schemathesis' },
  // Generates the Python client (clients/python/compute_api) from the OpenAPI document.
  'openapi-python-client': { version: '0.29.1', module: 'openapi_python_client' },
};

export const PYTHON_TOOL_VERSIONS: Readonly<Record<PythonTool, string>> = {
  standardwebhooks: PYTHON_TOOLS.standardwebhooks.version,
  schemathesis: PYTHON_TOOLS.schemathesis.version,
  'openapi-python-client': PYTHON_TOOLS['openapi-python-client'].version,
};

const MARKER = '.complete';

type Log = (msg: string) => void;

/** Path of the venv's python with the pinned packages of `tool` installed; builds the venv when missing. */
export async function ensurePythonTool(
  tool: PythonTool,
  toolsDir: string,
  log: Log = () => undefined,
): Promise<string> {
  const spec = PYTHON_TOOLS[tool];
  const requirements = [`${tool}==${spec.version}`];
  const root = path.resolve(toolsDir);
  const venv = path.join(root, `py-${tool}-${spec.version}`);
  const python = path.join(venv, 'bin', 'python');
  if (await isComplete(venv, requirements, spec.module)) return python;
  await fs.mkdir(root, { recursive: true });
  return withLock(path.join(root, `.py-${tool}-${spec.version}.lock`), log, async () => {
    // Another process may have finished the build while we waited for the lock.
    if (await isComplete(venv, requirements, spec.module)) return python;
    await build(tool, venv, requirements, spec.module, log);
    return python;
  });
}

async function isComplete(venv: string, requirements: string[], module: string): Promise<boolean> {
  const marker = await fs.readFile(path.join(venv, MARKER), 'utf8').catch(() => null);
  if (marker !== markerText(requirements)) return false;
  // The venv's python links to the interpreter it was made with, which may since have gone.
  return run(path.join(venv, 'bin', 'python'), ['-c', `import ${module}`]).then(
    () => true,
    () => false,
  );
}

const markerText = (requirements: string[]) => `${requirements.join('\n')}\n`;

async function build(tool: PythonTool, venv: string, requirements: string[], module: string, log: Log): Promise<void> {
  const started = Date.now();
  // Whatever is there is half built or outdated; the marker goes first so nobody trusts it meanwhile.
  await fs.rm(path.join(venv, MARKER), { force: true });
  await fs.rm(venv, { recursive: true, force: true });
  log(`creating a Python venv for ${requirements.join(' ')} in ${venv}`);
  const ticker = setInterval(
    () => log(`still installing ${tool}… ${Math.round((Date.now() - started) / 1000)} s`),
    30_000,
  );
  try {
    const install = ['install', '--disable-pip-version-check', '-q', ...requirements];
    if (await hasPipForOtherPythons()) {
      // The interpreter's own pip installs into the venv: no copy of pip for each venv (ensurepip
      // takes most of a build's CPU).
      await run('python3', ['-m', 'venv', '--without-pip', venv], log);
      await run('python3', ['-m', 'pip', '--python', path.join(venv, 'bin', 'python'), ...install], log);
    } else {
      await run('python3', ['-m', 'venv', venv], log);
      await run(path.join(venv, 'bin', 'pip'), install, log);
    }
    await run(path.join(venv, 'bin', 'python'), ['-c', `import ${module}`], log);
    const tmp = path.join(venv, `${MARKER}.tmp-${process.pid}`);
    await fs.writeFile(tmp, markerText(requirements));
    await fs.rename(tmp, path.join(venv, MARKER));
    log(`installed ${requirements.join(' ')} in ${Math.round((Date.now() - started) / 1000)} s`);
  } catch (err) {
    await fs.rm(venv, { recursive: true, force: true });
    throw err;
  } finally {
    clearInterval(ticker);
  }
}

/** Whether python3's own pip can install into another environment (`--python`, pip 22.3 and later). */
async function hasPipForOtherPythons(): Promise<boolean> {
  const lines: string[] = [];
  const ok = await run('python3', ['-m', 'pip', '--version'], (line) => lines.push(line)).then(
    () => true,
    () => false,
  );
  const [major, minor] = (/^pip (\d+)\.(\d+)/.exec(lines.join('\n')) ?? []).slice(1).map(Number);
  return ok && (major > 22 || (major === 22 && minor >= 3));
}

/** Runs a command to its end, its output lines to `log` (or, without one, into the error if it fails). */
function run(command: string, args: string[], log?: Log): Promise<void> {
  const shown = [command, ...args].join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: childEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    for (const stream of [child.stdout, child.stderr])
      readline.createInterface({ input: stream }).on('line', log ?? ((line) => output.push(line)));
    child.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT' ? new Error(`${shown}: "${command}" not found (Python 3 with venv is needed)`) : err,
      ),
    );
    child.once('close', (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `${shown} failed (${signal ?? `exit ${code}`})${output.length ? `: ${output.slice(-5).join('\n')}` : ''}`,
            ),
          ),
    );
  });
}
