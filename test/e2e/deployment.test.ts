// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { builtinModules } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadWorkerConfig } from '../../src/config';
import { EnvSchema } from '../../src/config/variables';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../../src/stack/debian-packages';

// The production deployment files (Dockerfile, docker-compose.yml, deploy/) checked without a
// Docker engine: Debian's docker-compose renders the file, tsc builds what the image would run.

const ROOT = path.resolve(__dirname, '../..');
const SECRETS = {
  POSTGRES_PASSWORD: 'pg-password-for-the-test',
  MINIO_ROOT_PASSWORD: 'minio-password-for-the-test',
  JWT_SECRET: 'a-jwt-secret-of-at-least-32-characters',
  WEBHOOK_SECRET_KEYS: 'dGVzdC13ZWJob29rLXNlY3JldC1rZXktMzItYnl0ZXM=',
  TEMPORAL_CODEC_KEYS: 'dGVzdC1jb2RlYy1rZXktb2YtMzItYnl0ZXMtZXhhY3Q=',
  SMTP_URL: 'smtp://mail.invalid:25',
};
/** Our own image's services, whose environment src/config/variables.ts must know. */
const OURS = ['api', 'worker', 'migrate', 'agent'];

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
  deploy?: { replicas?: number };
  restart?: string;
  ports?: Array<{ published?: number | string; target?: number } | string>;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], env: Record<string, string | undefined>): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Renders docker-compose.yml with only `vars` and an empty env file: neither a developer's .env nor their shell leaks in. */
function composeConfig(vars: Record<string, string>, emptyEnvFile: string): Promise<Run> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, COMPOSE_PROFILES: 'agent', ...vars };
  return run('docker-compose', ['--env-file', emptyEnvFile, '-f', 'docker-compose.yml', 'config'], env);
}

/** `Keyword` for SearchAttributeType.KEYWORD, `KeywordList` for KEYWORD_LIST: the CLI's spelling. */
const cliType = (sdkType: string) =>
  sdkType
    .split('_')
    .map((w) => w[0] + w.slice(1).toLowerCase())
    .join('');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(full);
    return e.name.endsWith('.ts') ? [full] : [];
  });
}

/** Packages reached from `entry` through the static requires of our compiled files, with a file that needs each. */
function packagesReached(entry: string): Map<string, string> {
  const builtins = new Set(builtinModules);
  const packages = new Map<string, string>();
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    // tsc's CommonJS output: require("x") for imports; require.resolve('x') where the source wrote one.
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/\brequire(?:\.resolve)?\(\s*(["'])([^"']+)\1\s*\)/g)) {
      const spec = m[2];
      if (spec.startsWith('.')) {
        const base = path.resolve(path.dirname(file), spec);
        const found = [base, `${base}.js`, path.join(base, 'index.js')].find(
          (p) => fs.existsSync(p) && fs.statSync(p).isFile(),
        );
        assert.ok(found, `${path.relative(ROOT, file)} requires ${spec}, which the build did not produce`);
        queue.push(found);
      } else if (!spec.startsWith('node:') && !builtins.has(spec.split('/')[0])) {
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!packages.has(name)) packages.set(name, file);
      }
    }
  }
  return packages;
}

describe('deployment files', function () {
  let services: Record<string, Service>;
  let tmp: string;
  const render = (vars: Record<string, string>) => composeConfig(vars, path.join(tmp, 'empty.env'));

  before(async function () {
    this.timeout(300_000);
    await ensureDebianPackage('docker-compose', DEBIAN_PACKAGE_VERSIONS['docker-compose'], (msg) =>
      process.stderr.write(`    ${msg}\n`),
    );
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-compose-'));
    fs.writeFileSync(path.join(tmp, 'empty.env'), '');
    const rendered = await render(SECRETS);
    assert.equal(rendered.code, 0, rendered.stderr);
    services = (parse(rendered.stdout) as { services: Record<string, Service> }).services;
  });

  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  it('docker-compose.yml renders every service of the deployment', () => {
    const expected = [
      'postgres',
      'temporal-schema',
      'temporal',
      'temporal-setup',
      'temporal-ui',
      'minio',
      'minio-setup',
      'migrate',
      'api',
      'worker',
      'worker-next',
      'gateway',
      'agent',
      'prometheus',
      'grafana',
    ];
    assert.deepEqual(Object.keys(services).sort(), [...expected].sort());
    assert.equal(services.api.deploy?.replicas, 2);
    assert.equal(services.worker.deploy?.replicas, 2);
    assert.equal(String(services.worker.environment?.WORKER_PORT), '3001');
    assert.equal(String(services.api.environment?.TRUST_PROXY), 'true');
    for (const name of OURS) assert.equal(services[name].image, services.api.image, `${name} runs our image`);
  });

  it('runs the workers as a build of the deployment, and the next build beside them as worker-next', () => {
    const { worker, 'worker-next': next } = services;
    assert.equal(worker.environment?.TEMPORAL_DEPLOYMENT_NAME, 'compute');
    assert.equal(String(worker.environment?.TEMPORAL_BUILD_ID), '1', 'COMPUTE_BUILD_ID, 1 unless set');
    assert.equal(String(worker.environment?.TEMPORAL_PROMOTE_IF_NO_CURRENT), 'true');
    assert.deepEqual(next.command, worker.command);
    assert.equal(next.deploy?.replicas, worker.deploy?.replicas);
    // The same settings but its own build ID, which it refuses to start without, and no promotion.
    const { TEMPORAL_BUILD_ID, TEMPORAL_PROMOTE_IF_NO_CURRENT, ...shared } = worker.environment!;
    const { TEMPORAL_BUILD_ID: nextBuildId, ...nextShared } = next.environment!;
    assert.deepEqual(nextShared, shared);
    assert.equal(nextBuildId, '');
    assert.throws(() => loadWorkerConfig({ ...next.environment }), /TEMPORAL_BUILD_ID/);
    assert.notEqual(next.image, worker.image, 'COMPUTE_NEXT_IMAGE');
  });

  it('health checks guard every long-running dependency, and depends_on waits on them', () => {
    for (const name of ['api', 'worker', 'postgres', 'temporal', 'minio']) {
      const check = services[name].healthcheck;
      assert.ok(check?.test && check.test.length > 1 && !check.disable, `${name} has a health check`);
    }
    for (const name of ['api', 'worker']) {
      for (const oneShot of ['migrate', 'temporal-setup', 'minio-setup']) {
        assert.equal(
          services[name].depends_on?.[oneShot]?.condition,
          'service_completed_successfully',
          `${name} waits for ${oneShot}`,
        );
      }
    }
    let healthyWaits = 0;
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        assert.ok(services[dependency], `${name} depends on an existing service ${dependency}`);
        if (condition === 'service_healthy') {
          healthyWaits++;
          assert.ok(
            services[dependency].healthcheck?.test,
            `${name} waits for ${dependency} to be healthy, which needs a health check`,
          );
        }
        if (condition === 'service_completed_successfully') {
          assert.ok(
            [undefined, 'no'].includes(services[dependency].restart),
            `${dependency} is a one-shot that can complete`,
          );
        }
      }
    }
    assert.ok(healthyWaits >= 5, 'postgres, temporal, minio and api are waited on until healthy');
  });

  for (const missing of Object.keys(SECRETS)) {
    it(`refuses to render without ${missing}, naming it`, async () => {
      const vars: Record<string, string> = { ...SECRETS };
      delete vars[missing];
      const rendered = await render(vars);
      assert.notEqual(rendered.code, 0);
      assert.match(rendered.stderr, new RegExp(`${missing} is required`));
    });
  }

  it('sets no secret in the file itself: each comes from the environment', () => {
    const secretLike = /^\s*([A-Z0-9_]*(PASSWORD|PWD|SECRET|_KEY)[A-Z0-9_]*|SMTP_URL):\s*(.*)$/;
    const lines = fs
      .readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8')
      .split('\n')
      .filter((l) => secretLike.test(l));
    assert.ok(lines.length >= 8, 'the secrets are set somewhere');
    for (const line of lines)
      assert.match(secretLike.exec(line)![3], /^(\$\{[A-Z0-9_]+:?[?-]|\*[a-z-]+$)/, line.trim());
  });

  it('gives our services only variables that src/config/variables.ts reads', () => {
    const known = new Set(Object.keys(EnvSchema.shape));
    for (const name of [...OURS, 'worker-next']) {
      const variables = Object.keys(services[name].environment ?? {});
      assert.ok(variables.length > 0, `${name} sets its environment`);
      assert.deepEqual(
        variables.filter((v) => !known.has(v)),
        [],
        `${name} sets only variables the service reads`,
      );
    }
  });

  it('registers exactly the search attributes the code defines, with their types', () => {
    const script = fs.readFileSync(path.join(ROOT, 'deploy', 'temporal-setup.sh'), 'utf8');
    const registered = /^SEARCH_ATTRIBUTES="([^"]*)"/m.exec(script)?.[1].split(/\s+/).sort();
    const defined = ['src', 'workflows', 'activities']
      .flatMap((dir) => sourceFiles(path.join(ROOT, dir)))
      .flatMap((file) => [
        ...fs
          .readFileSync(file, 'utf8')
          .matchAll(/defineSearchAttributeKey\(\s*'(\w+)',\s*SearchAttributeType\.(\w+)\s*\)/g),
      ])
      // Temporal's own (TemporalScheduledStartTime, read by the meter) exist on every server.
      .filter((m) => !m[1].startsWith('Temporal'))
      .map((m) => `${m[1]}:${cliType(m[2])}`)
      .sort();
    assert.ok(defined.length >= 6, 'the code defines its search attributes with defineSearchAttributeKey');
    assert.deepEqual(registered, defined);
  });

  it("the monitoring profile mounts the repo's Prometheus config, alert rules and Grafana provisioning, scraping every api and worker on its port", () => {
    const mounts = (name: string) =>
      ((services[name] as Service & { volumes?: string[] }).volumes ?? []).map((v) => v.split(':'));
    const repoFile = (source: string) => {
      assert.ok(fs.existsSync(source), `${source} exists in the repo`);
      return path.relative(ROOT, source);
    };
    for (const name of ['prometheus', 'grafana'])
      assert.deepEqual((services[name] as Service & { profiles?: string[] }).profiles, ['monitoring']);
    assert.deepEqual(
      mounts('prometheus')
        .filter(([source]) => source.startsWith('/'))
        .map(([source, target]) => [repoFile(source), target]),
      [
        ['deploy/prometheus/prometheus.yml', '/etc/prometheus/prometheus.yml'],
        ['deploy/prometheus/alerts.yml', '/etc/prometheus/alerts.yml'],
      ],
    );
    assert.deepEqual(
      mounts('grafana').map(([source, target]) => [repoFile(source), target]),
      [
        ['deploy/grafana/provisioning', '/etc/grafana/provisioning'],
        ['deploy/grafana/dashboards', '/var/lib/grafana/dashboards'],
      ],
    );
    // What Prometheus scrapes is where the services listen.
    const config = parse(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as {
      rule_files: string[];
      scrape_configs: Array<{ job_name: string; dns_sd_configs: Array<{ names: string[]; port: number }> }>;
    };
    assert.deepEqual(config.rule_files, ['alerts.yml']);
    const scraped = Object.fromEntries(
      config.scrape_configs.flatMap((c) => c.dns_sd_configs.flatMap((d) => d.names.map((n) => [n, d.port]))),
    );
    assert.deepEqual(scraped, {
      api: Number(services.api.environment?.PORT),
      worker: Number(services.worker.environment?.WORKER_PORT),
      'worker-next': Number(services['worker-next'].environment?.WORKER_PORT),
    });
    // The dashboard's datasource is the one provisioned beside it.
    const datasources = parse(
      fs.readFileSync(path.join(ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yaml'), 'utf8'),
    ) as { datasources: Array<{ uid: string; url: string }> };
    const dashboard = JSON.parse(fs.readFileSync(path.join(ROOT, 'deploy/grafana/dashboards/compute.json'), 'utf8'));
    const variable = dashboard.templating.list.find((v: { name: string }) => v.name === 'datasource');
    assert.deepEqual(
      datasources.datasources.map((d) => [d.uid, d.url]),
      [[variable.current.value, 'http://prometheus:9090']],
    );
  });

  it('the gateway streams, hides /metrics and /readyz, and balances over every api replica', () => {
    const conf = fs.readFileSync(path.join(ROOT, 'deploy', 'nginx.conf'), 'utf8');
    for (const directive of [
      'resolver 127.0.0.11',
      'proxy_pass $api;',
      'proxy_buffering off;',
      'proxy_request_buffering off;',
      'client_max_body_size 0;',
      'proxy_read_timeout 75s;',
    ]) {
      assert.ok(conf.includes(directive), directive);
    }
    assert.match(conf, /set \$api http:\/\/api:3000;/);
    assert.match(conf, /location = \/metrics \{\s*return 404;/);
    assert.match(conf, /location = \/readyz \{\s*return 404;/);
    assert.match(conf, /proxy_set_header X-Forwarded-For /);
    assert.match(conf, /proxy_set_header X-Request-Id /);
    assert.deepEqual(
      services.gateway.ports?.map((p) => (typeof p === 'string' ? p : `${p.published}:${p.target}`)),
      ['3000:3000'],
    );
  });

  it("the Dockerfile's runtime stage installs production dependencies only and runs as a non-root user", () => {
    const stages = fs
      .readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')
      .split(/^FROM /m)
      .slice(1);
    assert.equal(stages.length, 2);
    assert.ok(stages.every((s) => s.startsWith('node:20-bookworm-slim')));
    const runtime = stages[1];
    assert.match(runtime, /^RUN npm ci [^\n]*--omit=dev/m);
    assert.match(runtime, /^COPY --from=build \/app\/dist \.\/dist$/m);
    const users = [...runtime.matchAll(/^USER (\S+)/gm)].map((m) => m[1]);
    assert.ok(users.length > 0 && !['root', '0'].includes(users[users.length - 1]), `runs as ${users.at(-1)}`);
  });

  describe('built output', function () {
    let outDir: string;

    before(async function () {
      this.timeout(600_000);
      outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-build-'));
      // The build the Dockerfile runs, into a folder of its own.
      const built = await run('npm', ['run', 'build', '--', '--outDir', outDir], process.env);
      assert.equal(built.code, 0, built.stdout + built.stderr);
    });

    after(() => fs.rmSync(outDir, { recursive: true, force: true }));

    /** `node [flags] <file> [args]`: the file and what follows it. */
    const commandOf = (name: string) => {
      const [node, ...rest] = services[name].command ?? [];
      assert.equal(node, 'node', `${name} runs node`);
      const at = rest.findIndex((a) => !a.startsWith('-'));
      return { file: rest[at], args: rest.slice(at + 1) };
    };
    const entryOf = (name: string) => {
      const { file } = commandOf(name);
      assert.ok(file?.startsWith('dist/'), `${name} runs a file of the build: ${file}`);
      return path.join(outDir, file.slice('dist/'.length));
    };

    it('leaves out what only development and the tests run: the local stack, its tool installers and npm run dev', () => {
      assert.ok(fs.existsSync(path.join(outDir, 'src/main/api.js')), 'the build is there');
      assert.deepEqual(
        ['src/stack', 'src/main/dev.js', 'src/main/stack-prod.js'].filter((p) => fs.existsSync(path.join(outDir, p))),
        [],
      );
    });

    it("each service's command names a file of the build, reaching production dependencies only", () => {
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      for (const name of OURS) {
        const entry = entryOf(name);
        assert.ok(fs.existsSync(entry), `${name}: ${entry} was built`);
        const reached = packagesReached(entry);
        assert.ok(reached.size > 0, `${name} reaches its packages`);
        for (const [dep, from] of reached) {
          assert.ok(
            dep in pkg.dependencies,
            `${name} needs ${dep} (from ${path.relative(outDir, from)}), not a production dependency`,
          );
        }
        assert.ok(!reached.has('tsx'), `${name} runs without a TypeScript loader`);
      }
    });

    it("the workers' TEMPORAL_WORKFLOW_BUNDLE is the bundle the Dockerfile's build makes", async function () {
      this.timeout(60_000);
      const build = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').split(/^FROM /m)[1];
      assert.match(build, /^RUN [^\n]*npm run build:workflows/m);
      const named = services.worker.environment?.TEMPORAL_WORKFLOW_BUNDLE;
      assert.equal(named, 'dist/workflow-bundle.js');
      const built = await run(
        'npm',
        ['run', 'build:workflows', '--', path.join(outDir, 'workflow-bundle.js')],
        process.env,
      );
      assert.equal(built.code, 0, built.stdout + built.stderr);
      const code = fs.readFileSync(path.join(outDir, named.slice('dist/'.length)), 'utf8');
      // Workflows of every kind the worker runs, by their exported names.
      for (const name of ['job', 'webhookLane', 'webhookRedelivery', 'meter', 'billingPeriod'])
        assert.match(code, new RegExp(`\\b${name}\\b`), name);
    });

    it('the agent without a key exits at once, naming COMPUTE_AGENT_KEY', async function () {
      this.timeout(30_000);
      const { args } = commandOf('agent');
      const env = {
        PATH: process.env.PATH,
        HOME: os.tmpdir(),
        NODE_PATH: path.join(ROOT, 'node_modules'),
        ...services.agent.environment,
        COMPUTE_AGENT_DIR: outDir,
      };
      const started = await run(process.execPath, [entryOf('agent'), ...args], env);
      assert.equal(started.code, 1);
      assert.match(started.stderr, /COMPUTE_AGENT_KEY/);
    });
  });
});
