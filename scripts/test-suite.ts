// `npm test`: the whole suite on one stack, in two lanes at once (test/lanes.ts says which file
// runs where and why). The shared lane runs in this process, its output live; the isolated lane
// runs in a mocha process of its own, and its output follows once both are done. The last line is
// the plain summary CI reads: "N passed, N failed, N skipped". Files given as arguments narrow the
// run to them, each in its lane.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Mocha from 'mocha';
import { mochaHooks } from '../test/hooks';
import { loadToolsDir } from '../src/config';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../src/stack/debian-packages';
import { ensurePythonTool } from '../src/stack/python-venv';
import { ISOLATED_FILES, ISOLATED_FOLDERS, ISOLATED_LANE, SHARED_LANE } from '../test/lanes';
import { attachTestEnv, detachTestEnv, installQuietSdkRuntime, startSuiteStack } from '../test/support/env';

const ROOT = path.resolve(__dirname, '..');
const rc = JSON.parse(fs.readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8')) as { timeout: number; slow: number; reporter: string };

interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

function testFiles(): string[] {
  const all = (fs.readdirSync(path.join(ROOT, 'test'), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join('test', f))
    .sort();
  // A file listed for the isolated lane that is not there is a typo that would move it unseen.
  const missing = ISOLATED_FILES.filter((f) => !all.includes(f));
  if (missing.length) throw new Error(`test/lanes.ts lists files that do not exist: ${missing.join(', ')}`);
  const asked = process.argv.slice(2).map((f) => path.relative(ROOT, path.resolve(f)));
  return asked.length ? all.filter((f) => asked.includes(f)) : all;
}

/**
 * The tools only tests use, installed (when missing) before the lanes start: each install waits
 * for a lock another would hold, and a lane's hook should not spend its timeout in that queue.
 */
async function ensureTestTools(): Promise<void> {
  const log = (msg: string) => process.stderr.write(`  [tools] ${msg}\n`);
  const toolsDir = loadToolsDir();
  for (const name of ['chromium', 'docker-compose', 'bubblewrap'] as const) await ensureDebianPackage(name, DEBIAN_PACKAGE_VERSIONS[name], log);
  for (const tool of ['standardwebhooks', 'schemathesis'] as const) await ensurePythonTool(tool, toolsDir, log);
}

const isolated = (file: string) => ISOLATED_FILES.includes(file) || ISOLATED_FOLDERS.some((d) => file.startsWith(d));

/** The isolated lane: mocha with the project's settings, attached to the stack `stackFile` names. */
function startIsolatedLane(files: string[], stackFile: string): { done: Promise<{ output: string; tally?: Tally }>; kill(): void } {
  const chunks: Buffer[] = [];
  const color = process.stdout.isTTY ? '--color' : '--no-color';
  const child = spawn(process.execPath, [require.resolve('mocha/bin/mocha.js'), color, ...files], {
    cwd: ROOT,
    env: { ...process.env, COMPUTE_TEST_STACK: stackFile, COMPUTE_TEST_LANE: ISOLATED_LANE.name },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<{ output: string; tally?: Tally }>((resolve) => {
    child.on('close', () => {
      const output = Buffer.concat(chunks).toString();
      const line = new RegExp(`lane ${ISOLATED_LANE.name}: (\\d+) passed, (\\d+) failed, (\\d+) skipped`).exec(output);
      resolve({ output, tally: line ? { passed: Number(line[1]), failed: Number(line[2]), skipped: Number(line[3]) } : undefined });
    });
  });
  return { done, kill: () => child.exitCode === null && child.kill('SIGTERM') };
}

async function runSharedLane(files: string[]): Promise<Tally> {
  process.env.COMPUTE_TEST_LANE = SHARED_LANE.name;
  const mocha = new Mocha({ timeout: rc.timeout, slow: rc.slow, reporter: path.join(ROOT, rc.reporter), rootHooks: mochaHooks, color: Boolean(process.stdout.isTTY) });
  for (const file of files) mocha.addFile(path.join(ROOT, file));
  await mocha.loadFilesAsync();
  return new Promise((resolve) => {
    const runner = mocha.run(() => resolve({ passed: runner.stats?.passes ?? 0, failed: runner.stats?.failures ?? 0, skipped: runner.stats?.pending ?? 0 }));
  });
}

async function main(): Promise<number> {
  const files = testFiles();
  const laneFiles = { isolated: files.filter(isolated), shared: files.filter((f) => !isolated(f)) };
  installQuietSdkRuntime();
  const started = Date.now();
  const suite = await startSuiteStack();
  let lane: ReturnType<typeof startIsolatedLane> | undefined;
  // Whatever ends the run (the end, a file that will not load, Ctrl-C): no lane or server is left.
  const cleanUp = async () => {
    lane?.kill();
    await detachTestEnv(suite).catch(() => undefined);
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  try {
    if (process.argv.length <= 2) await ensureTestTools();
    process.stderr.write(`  test stack ready in ${Date.now() - started} ms; lanes: ${laneFiles.shared.length} files shared, ${laneFiles.isolated.length} isolated\n`);
    const stackFile = path.join(suite.dataDir, 'suite-stack.json');
    const { stack: _stack, ...attachable } = suite;
    fs.writeFileSync(stackFile, JSON.stringify({ suite: attachable, lane: ISOLATED_LANE }));
    if (laneFiles.isolated.length) lane = startIsolatedLane(laneFiles.isolated, stackFile);
    let shared: Tally = { passed: 0, failed: 0, skipped: 0 };
    if (laneFiles.shared.length) {
      await attachTestEnv(suite, SHARED_LANE);
      shared = await runSharedLane(laneFiles.shared);
    }
    const other = lane ? await lane.done : { output: '', tally: { passed: 0, failed: 0, skipped: 0 } };
    if (lane) process.stdout.write(`\n── isolated lane ──\n${other.output}`);
    // A lane that died before its summary counts as a failure, whatever it had passed.
    const tally = other.tally ?? { passed: 0, failed: 1, skipped: 0 };
    if (!other.tally) process.stdout.write('\nthe isolated lane ended without its summary: see its output above\n');
    const all = { passed: shared.passed + tally.passed, failed: shared.failed + tally.failed, skipped: shared.skipped + tally.skipped };
    process.stdout.write(`\nsuite: ${((Date.now() - started) / 60_000).toFixed(1)} minutes, both lanes\n${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped\n`);
    return all.failed > 0 ? 1 : 0;
  } finally {
    await cleanUp();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
