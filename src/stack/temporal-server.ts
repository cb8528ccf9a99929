import fs from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { SEARCH_ATTRIBUTE_REGISTRATIONS } from '../../workflows/search-attributes';
import { startChild } from './child';
import { assertPortFree } from './ports';

export interface TemporalDevServerOptions {
  binary: string;
  ip?: string;
  port: number;
  uiPort?: number;
  /** The codec endpoint the UI decodes payloads with (ours: the API's /codec). */
  uiCodecEndpoint?: string;
  headless: boolean;
  /** SQLite file that keeps workflows across restarts; in-memory when absent. */
  dbFile?: string;
  /** Created at start besides "default", which always exists. */
  namespace?: string;
  logFile: string;
  readyTimeoutMs?: number;
}

export interface TemporalDevServer {
  address: string;
  uiUrl?: string;
  stop(): Promise<void>;
}

/** Runs `temporal server start-dev` and resolves once its frontend answers gRPC. */
export async function startTemporalDevServer(opts: TemporalDevServerOptions): Promise<TemporalDevServer> {
  const ip = opts.ip ?? '127.0.0.1';
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(opts.port), '--log-level', 'warn'];
  if (opts.headless) args.push('--headless');
  else if (opts.uiPort !== undefined) args.push('--ui-port', String(opts.uiPort));
  if (!opts.headless && opts.uiCodecEndpoint) args.push('--ui-codec-endpoint', opts.uiCodecEndpoint);
  if (opts.dbFile) args.push('--db-filename', opts.dbFile);
  if (opts.namespace && opts.namespace !== 'default') args.push('--namespace', opts.namespace);
  // One partition per task queue: with the default four, a poll can miss a task sitting in
  // another partition and pick it up only after forwarding, which slows a single dev server.
  args.push('--dynamic-config-value', 'matching.numTaskqueueReadPartitions=1');
  args.push('--dynamic-config-value', 'matching.numTaskqueueWritePartitions=1');
  // Worker Versioning: a version that stopped being current reports itself drained, and one whose
  // workers stopped can be deleted, within seconds rather than the defaults' minutes (a drainage
  // check every 3 min after a 3 min grace for visibility; pollers remembered for 5 min), so the
  // upgrade runbook plays out here in a test's time. A poller is recorded as a long poll starts
  // and ends, so here a worker idle in a poll (up to a minute) may look gone: only deleting a
  // version reads that history, and this server is a developer's or a test's.
  args.push('--dynamic-config-value', 'matching.wv.VersionDrainageStatusRefreshInterval="2s"');
  args.push('--dynamic-config-value', 'matching.wv.VersionDrainageStatusVisibilityGracePeriod="2s"');
  args.push('--dynamic-config-value', 'matching.PollerHistoryTTL="5s"');
  // Updates, eager workflow start and the Worker Deployment APIs are on by default in Server 1.29
  // (CLI 1.5.1): nothing to add.
  for (const sa of SEARCH_ATTRIBUTE_REGISTRATIONS) args.push('--search-attribute', `${sa.name}=${sa.type}`);

  await assertPortFree(ip, opts.port);
  if (opts.dbFile) await fs.mkdir(path.dirname(opts.dbFile), { recursive: true }); // SQLite will not
  const child = startChild({ command: opts.binary, args, logFile: opts.logFile });
  const address = `${ip}:${opts.port}`;
  const stop = () => child.stop();
  try {
    await waitForFrontend('Temporal dev server', address, child.exited, opts.readyTimeoutMs ?? 60_000, opts.logFile);
  } catch (err) {
    await stop();
    throw err;
  }
  const uiUrl = opts.headless ? undefined : `http://${ip}:${opts.uiPort ?? opts.port + 1000}`;
  return { address, uiUrl, stop };
}

/** Resolves once the frontend at `address` answers gRPC; rejects if `exited` settles first. */
export async function waitForFrontend(
  what: string,
  address: string,
  exited: Promise<number | null>,
  timeoutMs: number,
  logFile: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  let exitCode: number | null = null;
  exited.then(
    (code) => ((gone = true), (exitCode = code)),
    () => (gone = true),
  );
  for (;;) {
    if (gone) throw new Error(`${what} exited (code ${exitCode}) before it was ready; see ${logFile}`);
    try {
      const connection = await Connection.connect({ address, connectTimeout: 2000 });
      try {
        // The socket can be up before the frontend serves; ask it something.
        await connection.workflowService.getSystemInfo({});
      } finally {
        await connection.close();
      }
      return;
    } catch (err) {
      if (Date.now() > deadline) {
        throw new Error(`${what} at ${address} not ready after ${timeoutMs} ms (${String(err)}); see ${logFile}`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
