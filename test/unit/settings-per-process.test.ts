import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import {
  ALL_VARIABLES,
  EnvSchema,
  PROCESS_VARIABLES,
  SECTIONS,
  loadAgentConfig,
  loadApiConfig,
  loadCliConfig,
  loadDevConfig,
  loadServiceConfig,
  loadWorkerConfig,
} from '../../src/config';
import { COMPUTE_BIN, cliEnvironment } from '../support/cli';
import { garbageForTheService } from '../support/settings';

// Each process parses its own settings and no other's (issue 49): a bad value of the service's in
// a developer's shell never stops the CLI, and the API and the worker still refuse their own.

const ROOT = path.resolve(__dirname, '../..');

/** `compute …` as `npx compute` runs it, with `env` on top of this environment without the developer's CLI settings. */
function compute(args: string[], env: Record<string, string>, input = '') {
  const child = spawn(process.execPath, [COMPUTE_BIN, ...args], {
    cwd: ROOT,
    env: cliEnvironment(env),
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  child.stdin.end(input);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('each process reads its own settings', () => {
  const garbage = garbageForTheService();

  it('the garbage is garbage to every process of the service', () => {
    assert.ok(Object.keys(garbage).length > 100, 'every variable of the service');
    for (const load of [loadApiConfig, loadWorkerConfig, loadServiceConfig, loadDevConfig]) {
      assert.throws(() => load(garbage), /^Error: Invalid configuration: NODE_ENV: /);
    }
  });

  it('compute --help prints the usage with garbage in every variable of the service', async () => {
    const help = await compute(['--help'], garbage);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: compute /);
    assert.match(help.stdout, /\blogin\b/);
    assert.equal(help.stderr, '');
  });

  it('compute login asks the API for a code with garbage in every variable of the service', async () => {
    const asked: Array<{ path?: string; body: string }> = [];
    const api = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        asked.push({ path: req.url, body });
        res
          .writeHead(503, { 'Content-Type': 'application/json' })
          .end(
            JSON.stringify({ status: 'ERROR', code: 'dependency.unavailable', message: 'no codes from this stand-in' }),
          );
      });
    });
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
    try {
      const apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
      const email = 'garbage@example.com';
      const login = await compute(['login'], { ...garbage, COMPUTE_API_URL: apiUrl }, `${email}\n`);
      assert.match(login.stderr, /E-mail: /, 'it asked for the address');
      assert.deepEqual(asked, [{ path: '/api/auth/request-otp', body: JSON.stringify({ email }) }], login.stderr);
      assert.match(login.stderr, /error: no codes from this stand-in \[dependency\.unavailable\]/);
      assert.equal(login.code, 1);
    } finally {
      await new Promise((resolve) => api.close(resolve));
    }
  });

  it('the CLI and the agent read their own settings whatever the service has', () => {
    const cli = loadCliConfig({
      ...garbage,
      COMPUTE_API_URL: 'http://api.example:3000',
      COMPUTE_CONFIG_DIR: '/tmp/compute-cli',
    });
    assert.deepEqual([cli.apiUrl, cli.configDir], ['http://api.example:3000', '/tmp/compute-cli']);
    const {
      LOG_LEVEL,
      AGENT_KILL_GRACE_MS,
      COMPUTE_AGENT_DIR,
      COMPUTE_AGENT_KEY,
      OTEL_EXPORTER_OTLP_ENDPOINT,
      OTEL_SERVICE_NAME,
      OTEL_TRACES_SAMPLER_ARG,
      ...service
    } = garbage;
    assert.ok(
      LOG_LEVEL &&
        AGENT_KILL_GRACE_MS &&
        COMPUTE_AGENT_DIR &&
        COMPUTE_AGENT_KEY &&
        OTEL_EXPORTER_OTLP_ENDPOINT &&
        OTEL_SERVICE_NAME,
      'what the agent reads is in the garbage too',
    );
    const agent = loadAgentConfig({ ...service, COMPUTE_AGENT_KEY: 'cka_x', COMPUTE_AGENT_DIR: '/tmp/agent' });
    assert.deepEqual(
      [agent.key, agent.dir, agent.killGraceMs, agent.logLevel],
      ['cka_x', '/tmp/agent', 10_000, 'info'],
    );
    assert.equal(agent.tracing.endpoint, undefined, 'the agent traces only when told where to');
    assert.throws(
      () => loadAgentConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }),
      /^Error: Invalid configuration: OTEL_EXPORTER_OTLP_ENDPOINT: /,
    );
    assert.throws(
      () => loadAgentConfig({ AGENT_KILL_GRACE_MS: 'soon' }),
      /^Error: Invalid configuration: AGENT_KILL_GRACE_MS: /,
    );
  });

  it('the API and the worker refuse a bad value of their own, naming it, and pass over the other’s', () => {
    const base = { NODE_ENV: 'test' };
    assert.throws(() => loadApiConfig({ ...base, PORT: 'eighty' }), /^Error: Invalid configuration: PORT: .*number/);
    assert.throws(
      () => loadApiConfig({ ...base, JWT_SECRET: 'short' }),
      /^Error: Invalid configuration: JWT_SECRET: JWT_SECRET must be at least 32 characters$/,
    );
    assert.throws(
      () => loadWorkerConfig({ ...base, BILLING_PERIOD: 'weekly' }),
      /^Error: Invalid configuration: BILLING_PERIOD: /,
    );
    // Both read what they share.
    for (const load of [loadApiConfig, loadWorkerConfig]) {
      assert.throws(
        () => load({ ...base, WEBHOOK_SECRET_KEYS: 'not-a-key' }),
        /^Error: Invalid configuration: WEBHOOK_SECRET_KEYS: each key must be base64 of 32 bytes/,
      );
    }
    assert.equal(loadWorkerConfig({ ...base, PORT: 'eighty', JWT_SECRET: 'short' }).worker.port, 3001);
    assert.equal(loadApiConfig({ ...base, WORKER_PORT: 'x', BILLING_PERIOD: 'weekly' }).http.port, 3000);
  });

  it('declares every variable once, in one section; each process parses them as declared', () => {
    const names = ALL_VARIABLES.map((v) => v.name);
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual([...names].sort(), Object.keys(EnvSchema.shape).sort());
    for (const v of ALL_VARIABLES)
      assert.equal(v.schema, (SECTIONS[v.section].shape as Record<string, unknown>)[v.name]);
    const declared = EnvSchema.shape as Record<string, unknown>;
    for (const [process, schema] of Object.entries(PROCESS_VARIABLES)) {
      for (const [name, type] of Object.entries(schema.shape))
        assert.equal(type, declared[name], `${process} parses ${name} as declared`);
    }
  });
});
