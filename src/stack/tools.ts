import { childEnvironment } from '../config';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';

// The Go-built tools the local stack runs, each pinned and built once per tools folder:
// `<toolsDir>/<name>-<version>/<name>`. The folder only ever appears by an atomic rename of a
// finished build, so a crashed build never leaves a half binary behind.

export type ToolName =
  | 'temporal'
  | 'minio'
  | 'stripe-mock'
  | 'temporal-server'
  | 'temporal-sql-tool'
  | 'temporal-ui-server'
  | 'promtool'
  | 'jaeger';

interface ToolSpec {
  /** Package given to `go install`. */
  pkg: string;
  /** Main module as `go version -m` reports it. */
  mod: string;
  version: string;
  /** The file `go install` writes, when it is not the tool's name (the package's last element). */
  produces?: string;
  /**
   * Built as a tool of a throwaway module (`go get -tool`, then `go build`): for a module whose
   * go.mod has replace directives, which `go install pkg@version` refuses.
   */
  inModule?: boolean;
}

/**
 * The Temporal server of the production-shaped stack (`npm run stack:prod`), the one the dev CLI
 * embeds and docker-compose.yml runs: a change of one is a change of all three.
 */
export const TEMPORAL_SERVER_VERSION = 'v1.29.1';

const TOOLS: Record<ToolName, ToolSpec> = {
  // Later CLI tags carry a replace directive that `go install` refuses.
  temporal: { pkg: 'github.com/temporalio/cli/cmd/temporal', mod: 'github.com/temporalio/cli', version: 'v1.5.1' },
  // MinIO publishes no installable tags; this is the pseudo-version `@latest` resolved to.
  minio: {
    pkg: 'github.com/minio/minio',
    mod: 'github.com/minio/minio',
    version: 'v0.0.0-20260212201848-7aac2a2c5b7c',
  },
  // Stripe's own mock of its API (billing tests and `npm run dev`): checks every request's shape.
  'stripe-mock': { pkg: 'github.com/stripe/stripe-mock', mod: 'github.com/stripe/stripe-mock', version: 'v0.203.0' },
  'temporal-server': {
    pkg: 'go.temporal.io/server/cmd/server',
    mod: 'go.temporal.io/server',
    version: TEMPORAL_SERVER_VERSION,
    produces: 'server',
  },
  // Sets up and upgrades the server's PostgreSQL schemas (its schemas are embedded in it).
  'temporal-sql-tool': {
    pkg: 'go.temporal.io/server/cmd/tools/sql',
    mod: 'go.temporal.io/server',
    version: TEMPORAL_SERVER_VERSION,
    produces: 'sql',
  },
  // The UI beside a real server (the dev CLI embeds its own): the version docker-compose.yml runs.
  'temporal-ui-server': {
    pkg: 'github.com/temporalio/ui-server/v2/cmd/server',
    mod: 'github.com/temporalio/ui-server/v2',
    version: 'v2.49.1',
    produces: 'server',
  },
  // Checks deploy/prometheus's alert rules and runs their unit tests (no Prometheus server is run).
  promtool: {
    pkg: 'github.com/prometheus/prometheus/cmd/promtool',
    mod: 'github.com/prometheus/prometheus',
    version: 'v0.316.0',
  },
  // The trace backend of `npm run dev` and the tracing test (Jaeger v2: an OpenTelemetry collector
  // with in-memory storage and the query API). Its UI's assets are not in the module.
  jaeger: {
    pkg: 'github.com/jaegertracing/jaeger/cmd/jaeger',
    mod: 'github.com/jaegertracing/jaeger',
    version: 'v1.75.0',
    inModule: true,
  },
};

export const TOOL_VERSIONS: Readonly<Record<ToolName, string>> = Object.fromEntries(
  Object.entries(TOOLS).map(([name, spec]) => [name, spec.version]),
) as Record<ToolName, string>;

type Log = (msg: string) => void;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Returns the absolute path of the pinned tool, building it with `go install` if needed. */
export async function ensureTool(name: ToolName, toolsDir: string, log: Log = () => undefined): Promise<string> {
  const spec = TOOLS[name];
  const root = path.resolve(toolsDir);
  const finalDir = path.join(root, `${name}-${spec.version}`);
  const binary = path.join(finalDir, name);
  if (await isPinnedBuild(binary, spec)) return binary;
  await fs.mkdir(root, { recursive: true });
  return withLock(path.join(root, `.${name}-${spec.version}.lock`), log, async () => {
    // Another process may have finished the build while we waited for the lock.
    if (await isPinnedBuild(binary, spec)) return binary;
    await build(name, spec, root, finalDir, log);
    return binary;
  });
}

/** True when `binary` exists and `go version -m` names the pinned module version. */
async function isPinnedBuild(binary: string, spec: ToolSpec): Promise<boolean> {
  try {
    await fs.access(binary, fs.constants.X_OK);
  } catch {
    return false;
  }
  // `temporal --version` says 0.0.0-DEV for a `go install` build, so the build info is the truth.
  return new Promise((resolve) => {
    execFile('go', ['version', '-m', binary], (err, stdout) => {
      // Without Go we could not rebuild anyway; the versioned folder is then our evidence.
      if (err) return resolve((err as NodeJS.ErrnoException).code === 'ENOENT');
      const m = /^\tmod\t(\S+)\t(\S+)/m.exec(stdout);
      resolve(m !== null && m[1] === spec.mod && m[2] === spec.version);
    });
  });
}

async function build(name: ToolName, spec: ToolSpec, root: string, finalDir: string, log: Log): Promise<void> {
  // Leftovers of builds that crashed earlier.
  for (const entry of await fs.readdir(root)) {
    if (entry.startsWith(`.${name}-${spec.version}.tmp-`))
      await fs.rm(path.join(root, entry), { recursive: true, force: true });
  }
  const tmp = await fs.mkdtemp(path.join(root, `.${name}-${spec.version}.tmp-`));
  const started = Date.now();
  log(`building ${name} ${spec.version} with go install (about 3 minutes the first time)`);
  const ticker = setInterval(
    () => log(`still building ${name}… ${Math.round((Date.now() - started) / 1000)} s`),
    30_000,
  );
  try {
    if (spec.inModule) await goBuildAsTool(spec, tmp, name, log);
    else await goInstall(`${spec.pkg}@${spec.version}`, tmp, log);
    if (spec.produces) await fs.rename(path.join(tmp, spec.produces), path.join(tmp, name));
    if (!(await isPinnedBuild(path.join(tmp, name), spec))) {
      throw new Error(`go install ${spec.pkg}@${spec.version} did not produce the expected ${name} build`);
    }
    await fs.chmod(tmp, 0o755); // mkdtemp makes it private
    await fs.rm(finalDir, { recursive: true, force: true }); // a bad copy; we hold the lock
    await fs.rename(tmp, finalDir);
    log(`built ${name} ${spec.version} in ${Math.round((Date.now() - started) / 1000)} s: ${finalDir}`);
  } finally {
    clearInterval(ticker);
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

/** `go install target` with GOBIN set. */
const goInstall = (target: string, gobin: string, log: Log) =>
  runGo(['install', target], { GOBIN: gobin }, undefined, log);

/** Builds `spec.pkg` into `dir/name` from a module of its own made in `dir/module` (removed after). */
async function goBuildAsTool(spec: ToolSpec, dir: string, name: string, log: Log): Promise<void> {
  const module = path.join(dir, 'module');
  await fs.mkdir(module);
  try {
    await runGo(['mod', 'init', `compute-tools/${name}`], {}, module, log);
    await runGo(['get', '-tool', `${spec.pkg}@${spec.version}`], {}, module, log);
    await runGo(['build', '-o', path.join(dir, name), spec.pkg], {}, module, log);
  } finally {
    await fs.rm(module, { recursive: true, force: true });
  }
}

function runGo(args: string[], env: Record<string, string>, cwd: string | undefined, log: Log): Promise<void> {
  const target = args.join(' ');
  return new Promise((resolve, reject) => {
    // The child's environment is ours plus `env`.
    const go = spawn('go', args, { env: childEnvironment(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [go.stdout, go.stderr]) readline.createInterface({ input: stream }).on('line', log);
    go.once('error', (err: NodeJS.ErrnoException) =>
      reject(err.code === 'ENOENT' ? new Error(`Go is needed to build ${target}, and "go" is not on PATH`) : err),
    );
    go.once('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`go ${target} failed (${signal ?? `exit ${code}`})`)),
    );
  });
}

/** A mkdir-based lock: mkdir is atomic, and the pid inside lets a later process spot a dead holder. */
export async function withLock<T>(lockDir: string, log: Log, fn: () => Promise<T>): Promise<T> {
  let announced = false;
  for (;;) {
    try {
      await fs.mkdir(lockDir);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (await isStale(lockDir)) {
      await fs.rm(lockDir, { recursive: true, force: true });
      continue;
    }
    if (!announced) log(`waiting for another process that is building the same tool (${lockDir})`);
    announced = true;
    await sleep(2000);
  }
  try {
    await fs.writeFile(path.join(lockDir, 'pid'), String(process.pid));
    return await fn();
  } finally {
    await fs.rm(lockDir, { recursive: true, force: true });
  }
}

async function isStale(lockDir: string): Promise<boolean> {
  const pid = Number(await fs.readFile(path.join(lockDir, 'pid'), 'utf8').catch(() => ''));
  if (!pid) {
    // Between mkdir and writing the pid, or a holder that died right there.
    const stat = await fs.stat(lockDir).catch(() => null);
    return stat !== null && Date.now() - stat.mtimeMs > 30_000;
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
