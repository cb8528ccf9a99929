// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadToolsDir } from '../../src/config';
import { ensurePythonTool } from '../../src/stack/python-venv';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';

/** Test cases per operation and phase: enough to find what a careless client sends, bounded for CI. */
const MAX_EXAMPLES = Number(process.env.FUZZ_MAX_EXAMPLES ?? 30);
/**
 * Each response must be a documented status, content type and shape, never a 5xx; a request the
 * document forbids must be refused, a method it does not list answered 405, a missing required
 * header refused. Not `positive_data_acceptance`: it counts a refusal the document cannot express
 * as a failure (a page token we did not issue, a webhook URL whose host does not resolve).
 */
const CHECKS = process.env.FUZZ_CHECKS?.split(',') ?? [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
  'negative_data_rejection',
  'unsupported_method',
  'missing_required_header',
];

interface FuzzRun {
  code: number | null;
  output: string;
}

async function schemathesis(args: string[], logFile: string): Promise<FuzzRun> {
  const python = await ensurePythonTool('schemathesis', loadToolsDir(), (msg) =>
    process.stderr.write(`      [python] ${msg}\n`),
  );
  const bin = path.join(path.dirname(python), 'schemathesis');
  return new Promise((resolve, reject) => {
    // Its cache folder goes to the temporary folder, not the checkout.
    const child = spawn(bin, args, {
      cwd: os.tmpdir(),
      env: { ...process.env, NO_COLOR: '1', SCHEMATHESIS_HOOKS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    for (const s of [child.stdout, child.stderr]) s.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      fs.mkdirSync(path.dirname(logFile), { recursive: true });
      fs.writeFileSync(logFile, output);
      resolve({ code, output });
    });
  });
}

// The OpenAPI document drives schemathesis against a running API, one surface at a time with a
// credential of that surface: every answer must be one the document promises.
describe('the OpenAPI document, fuzzed against the running API (schemathesis)', function () {
  this.timeout(900_000);
  const apiWith = apisPerTest();

  before(async function () {
    this.timeout(600_000);
    await ensurePythonTool('schemathesis', loadToolsDir(), (msg) => process.stderr.write(`      [python] ${msg}\n`));
  });

  const run = async (surface: 'a' | 'b', header: string) => {
    // An instance of its own, so the fuzzer's flood meets no rate limit meant for people.
    const api = await apiWith({
      RATE_LIMIT_PER_MINUTE: '10000000',
      RATE_LIMIT_PER_HOUR: '100000000',
      AUTH_FAILURES_PER_MINUTE: '10000000',
    });
    // Kept after the run (the stack's folder is not): the whole report of the last run.
    const logFile = path.join(os.tmpdir(), `compute-schemathesis-${surface}.log`);
    const out = await schemathesis(
      [
        '--config-file',
        path.join(__dirname, '..', 'fixtures', 'schemathesis.toml'),
        'run',
        `${api.url}/${surface === 'a' ? 'api' : 'v0'}/openapi.json`,
        '--url',
        api.url!,
        '--include-path-regex',
        surface === 'a' ? '^/api/' : '^/v0/',
        '-H',
        header,
        '--checks',
        CHECKS.join(','),
        '--phases',
        'examples,coverage,fuzzing',
        '--max-examples',
        String(MAX_EXAMPLES),
        '--seed',
        '1',
        // One worker thread: with two, CPython 3.11's AST constructor (Hypothesis parses lambda
        // sources as it describes strategies) failed one run in a few with "AST constructor recursion
        // depth mismatch", a race between threads in the interpreter, not a finding (cpython#106905).
        '--workers',
        process.env.FUZZ_WORKERS ?? '1',
        '--request-timeout',
        '35',
        '--suppress-health-check',
        'all',
        '--no-shrink',
        ...(process.env.FUZZ_HAR ? ['--report', 'har', '--report-har-path', process.env.FUZZ_HAR] : []),
      ],
      logFile,
    );
    const cases = /Test cases:\s*\n\s*(.+)/.exec(out.output)?.[1] ?? 'no summary';
    process.stderr.write(`      surface ${surface}: ${cases}\n`);
    assert.equal(out.code, 0, `schemathesis found problems (full output in ${logFile}):\n${out.output.slice(-12_000)}`);
  };

  // A session token, which no operation can revoke: the fuzzer lists keys and revokes what it
  // finds, so with a key it would soon lock itself out and test nothing further.
  it('Surface A (/api) with a session token: no 5xx, every answer as documented', async () => {
    const session = await login();
    await run('a', `Authorization: Bearer ${session.token}`);
  });

  it('Surface B (/v0) with a session token: no 5xx, every answer as documented', async () => {
    const session = await login();
    await run('b', `Authorization: Bearer ${session.token}`);
  });
});
