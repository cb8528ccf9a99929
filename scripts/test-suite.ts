// `npm test`: the unit tests, with no service, and the rest of the suite on one stack in lanes at
// once (test/lanes.ts says which file runs where and why). The shared lane runs in this process,
// its output live; the unit, isolated and server lanes run in mocha processes of their own, and
// their output follows once all are done. Every failure of every lane is named again at the end,
// then the last line is the plain summary CI reads: "N passed, N failed, N skipped". Files given as
// arguments narrow the run to them, each in its lane.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Mocha from 'mocha';
import { mochaHooks } from '../test/hooks';
import { loadToolsDir } from '../src/config';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../src/stack/debian-packages';
import { ensurePythonTool } from '../src/stack/python-venv';
import { ensureTool } from '../src/stack/tools';
import { ALONE_LANE, ISOLATED_LANE, SERVER_LANE, SHARED_LANE, laneOf, temporalsOf } from '../test/lanes';
import {
  type SuiteStack,
  attachTestEnv,
  detachTestEnv,
  installQuietSdkRuntime,
  startSuiteStack,
  withTemporalServer,
} from '../test/support/env';

const ROOT = path.resolve(__dirname, '..');
const rc = JSON.parse(fs.readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8')) as {
  timeout: number;
  slow: number;
  reporter: string;
};

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
  for (const name of ['chromium', 'docker-compose', 'bubblewrap'] as const)
    await ensureDebianPackage(name, DEBIAN_PACKAGE_VERSIONS[name], log);
  for (const tool of ['standardwebhooks', 'schemathesis', 'openapi-python-client'] as const)
    await ensurePythonTool(tool, toolsDir, log);
  for (const tool of ['promtool', 'jaeger'] as const) await ensureTool(tool, toolsDir, log);
}

/**
 * A lane in a mocha process of its own: the unit lane with `.mocharc.unit.json` (no stack), the
 * isolated lane with the project's settings, attached to the stack `stackFile` names.
 */
function startLane(
  name: string,
  files: string[],
  o: { config?: string; stackFile?: string },
): { done: Promise<{ output: string; tally?: Tally }>; kill(): void } {
  const chunks: Buffer[] = [];
  const color = process.stdout.isTTY ? '--color' : '--no-color';
  const child = spawn(
    process.execPath,
    [require.resolve('mocha/bin/mocha.js'), color, ...(o.config ? ['--config', o.config] : []), ...files],
    {
      cwd: ROOT,
      env: { ...process.env, ...(o.stackFile && { COMPUTE_TEST_STACK: o.stackFile }), COMPUTE_TEST_LANE: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  child.stderr.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<{ output: string; tally?: Tally }>((resolve) => {
    child.on('close', () => {
      const output = Buffer.concat(chunks).toString();
      const line = new RegExp(`lane ${name}: (\\d+) passed, (\\d+) failed, (\\d+) skipped`).exec(output);
      resolve({
        output,
        tally: line ? { passed: Number(line[1]), failed: Number(line[2]), skipped: Number(line[3]) } : undefined,
      });
    });
  });
  return { done, kill: () => child.exitCode === null && child.kill('SIGTERM') };
}

async function runSharedLane(files: string[]): Promise<Tally> {
  process.env.COMPUTE_TEST_LANE = SHARED_LANE.name;
  const mocha = new Mocha({
    timeout: rc.timeout,
    slow: rc.slow,
    reporter: path.join(ROOT, rc.reporter),
    rootHooks: mochaHooks,
    color: Boolean(process.stdout.isTTY),
  });
  for (const file of files) mocha.addFile(path.join(ROOT, file));
  await mocha.loadFilesAsync();
  return new Promise((resolve) => {
    const runner = mocha.run(() =>
      resolve({
        passed: runner.stats?.passes ?? 0,
        failed: runner.stats?.failures ?? 0,
        skipped: runner.stats?.pending ?? 0,
      }),
    );
  });
}

/** Each failure the lanes' reporters appended to `file`, named again where CI's tail shows it. */
function recapFailures(file: string): string {
  const lines = fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  if (!lines.length) return '';
  const failures = lines.map((l) => JSON.parse(l) as { lane: string; file: string; title: string; error: string });
  // The first few with their messages; past them, titles only, so the tail CI shows still ends here.
  return `\nfailures, all lanes (${failures.length}):\n${failures
    .map(
      (f, i) =>
        `  ${i + 1}) [${f.lane}] ${f.file}: ${f.title}\n${
          i < 8
            ? `${f.error
                .split('\n')
                .map((l) => `       ${l}`)
                .join('\n')}\n`
            : ''
        }`,
    )
    .join('')}`;
}

/** A lane's output, and its tally; one that died before its summary counts as a failure. */
async function finish(name: string, lane: ReturnType<typeof startLane> | undefined): Promise<Tally> {
  if (!lane) return { passed: 0, failed: 0, skipped: 0 };
  const { output, tally } = await lane.done;
  process.stdout.write(`\n── ${name} lane ──\n${output}`);
  if (!tally) process.stdout.write(`\nthe ${name} lane ended without its summary: see its output above\n`);
  return tally ?? { passed: 0, failed: 1, skipped: 0 };
}

async function main(): Promise<number> {
  const files = testFiles();
  const onDev = (f: string) => laneOf(f) === 'unit' || temporalsOf(f).includes('dev');
  const laneFiles = {
    unit: files.filter((f) => laneOf(f) === 'unit'),
    isolated: files.filter((f) => laneOf(f) === 'isolated' && onDev(f)),
    shared: files.filter((f) => laneOf(f) === 'shared' && onDev(f)),
    server: files.filter(
      (f) => (laneOf(f) === 'isolated' || laneOf(f) === 'shared') && temporalsOf(f).includes('server'),
    ),
    alone: files.filter((f) => laneOf(f) === 'alone'),
  };
  const alone = (kind: 'dev' | 'server') => laneFiles.alone.filter((f) => temporalsOf(f).includes(kind));
  installQuietSdkRuntime();
  const started = Date.now();
  const recapDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-test-'));
  const recap = path.join(recapDir, 'failures.jsonl');
  process.env.COMPUTE_TEST_RECAP = recap;
  // The unit lane needs no stack: it runs while the stack starts.
  const unit = laneFiles.unit.length
    ? startLane('unit', laneFiles.unit, { config: path.join(ROOT, '.mocharc.unit.json') })
    : undefined;
  let lane: ReturnType<typeof startLane> | undefined;
  let serverLane: ReturnType<typeof startLane> | undefined;
  let suite: SuiteStack | undefined;
  let serverSuite: SuiteStack | undefined;
  // Whatever ends the run (the end, a file that will not load, Ctrl-C): no lane or server is left.
  const cleanUp = async () => {
    unit?.kill();
    lane?.kill();
    serverLane?.kill();
    await serverSuite?.stopTemporal?.().catch(() => undefined);
    if (suite) await detachTestEnv(suite).catch(() => undefined);
    fs.rmSync(recapDir, { recursive: true, force: true });
  };
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));
  try {
    let shared: Tally = { passed: 0, failed: 0, skipped: 0 };
    let aloneTally: Tally = { passed: 0, failed: 0, skipped: 0 };
    if (laneFiles.isolated.length + laneFiles.shared.length + laneFiles.server.length + laneFiles.alone.length) {
      suite = await startSuiteStack('dev');
      if (process.argv.length <= 2) await ensureTestTools();
      if (laneFiles.server.length + alone('server').length) serverSuite = await withTemporalServer(suite);
      process.stderr.write(
        `  test stack ready in ${Date.now() - started} ms; lanes: ${laneFiles.unit.length} files unit, ${laneFiles.shared.length} shared, ${laneFiles.isolated.length} isolated, ${laneFiles.server.length} on the Temporal server\n`,
      );
      const stackFileOf = (s: SuiteStack, l: typeof ISOLATED_LANE) => {
        const file = path.join(s.dataDir, `suite-stack-${l.name}.json`);
        const { stack: _stack, stopTemporal: _stop, ...attachable } = s;
        fs.writeFileSync(file, JSON.stringify({ suite: attachable, lane: l }));
        return file;
      };
      if (laneFiles.isolated.length)
        lane = startLane(ISOLATED_LANE.name, laneFiles.isolated, { stackFile: stackFileOf(suite, ISOLATED_LANE) });
      if (laneFiles.server.length && serverSuite)
        serverLane = startLane(SERVER_LANE.name, laneFiles.server, {
          stackFile: stackFileOf(serverSuite, SERVER_LANE),
        });
      if (laneFiles.shared.length) {
        await attachTestEnv(suite, SHARED_LANE);
        shared = await runSharedLane(laneFiles.shared);
      }
      // Then what must run with the machine to itself, each on its stack.
      await Promise.all([lane?.done, serverLane?.done]);
      for (const [kind, s] of [
        ['dev', suite],
        ['server', serverSuite],
      ] as const) {
        if (!s || !alone(kind).length) continue;
        const name = `${ALONE_LANE.name}-${kind}`;
        const l = { ...ALONE_LANE, name, background: kind === 'server' };
        const t = await finish(name, startLane(name, alone(kind), { stackFile: stackFileOf(s, l) }));
        aloneTally = {
          passed: aloneTally.passed + t.passed,
          failed: aloneTally.failed + t.failed,
          skipped: aloneTally.skipped + t.skipped,
        };
      }
    }
    const tallies = [
      shared,
      await finish('unit', unit),
      await finish(ISOLATED_LANE.name, lane),
      await finish(SERVER_LANE.name, serverLane),
      aloneTally,
    ];
    const all = tallies.reduce((a, t) => ({
      passed: a.passed + t.passed,
      failed: a.failed + t.failed,
      skipped: a.skipped + t.skipped,
    }));
    process.stdout.write(recapFailures(recap));
    process.stdout.write(
      `\nsuite: ${((Date.now() - started) / 60_000).toFixed(1)} minutes, all lanes\n${all.passed} passed, ${all.failed} failed, ${all.skipped} skipped\n`,
    );
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
