import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMPUTE_BIN, cliEnvironment } from '../support/cli';

// A command loads what it uses and no more: the database driver, Stripe, Temporal, tracing and the
// reference agent are loaded by the commands that run them, so `compute keys list` starts in a
// third of the time it took with everything loaded up front.

const ROOT = path.resolve(__dirname, '../..');
const HEAVY =
  /node_modules\/(knex|pg|pino|stripe|yaml|lodash|koa|@koa\/[^/]+|@temporalio\/[^/]+|@opentelemetry\/[^/]+)\//;

/** The packages `compute …args` loaded by the time it exited, and how it ended. */
async function loadedBy(args: string[]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-start-up-'));
  const hook = path.join(dir, 'hook.js');
  const out = path.join(dir, 'loaded.json');
  fs.writeFileSync(
    hook,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(out)}, JSON.stringify(Object.keys(require.cache))));`,
  );
  const child = spawn(process.execPath, ['-r', hook, COMPUTE_BIN, ...args], {
    cwd: ROOT,
    env: cliEnvironment({ COMPUTE_CONFIG_DIR: dir, COMPUTE_API_URL: 'http://127.0.0.1:1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdout.resume();
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const files = JSON.parse(fs.readFileSync(out, 'utf8')) as string[];
  fs.rmSync(dir, { recursive: true });
  const packages = new Set(files.flatMap((f) => f.match(/node_modules\/((@[^/]+\/)?[^/]+)\//)?.[1] ?? []));
  return { code, stderr, packages, heavy: [...new Set(files.flatMap((f) => f.match(HEAVY)?.[1] ?? []))] };
}

describe("the CLI's start-up", () => {
  it('--help loads commander and none of what only some commands run', async () => {
    const run = await loadedBy(['--help']);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(run.packages.has('commander'), 'the hook sees what is loaded');
    assert.deepEqual(run.heavy, []);
  });

  it('a command that talks to the API loads no driver, Stripe, Temporal or tracing', async () => {
    const run = await loadedBy(['keys', 'list']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /run `compute login` first/);
    assert.deepEqual(run.heavy, []);
  });

  it('compute agent loads the agent when it runs, and not before', async () => {
    const help = await loadedBy(['agent', '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.deepEqual(help.heavy, []);
    const run = await loadedBy(['agent']);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /an agent key is needed/);
    assert.ok(run.heavy.includes('pino'), `the agent's logger came with its run: ${run.heavy.join(', ')}`);
  });
});
