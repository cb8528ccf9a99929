import fs from 'node:fs/promises';
import path from 'node:path';
import { startJaeger } from './jaeger';
import { startMinio } from './minio';
import { startPostgres } from './postgres';
import { startStripeMock } from './stripe-mock';
import { startTemporalDevServer } from './temporal-server';
import { ensureTool } from './tools';

export interface LocalStackOptions {
  dataDir: string;
  toolsDir: string;
  ports: {
    postgres: number;
    temporal: number;
    temporalUi?: number;
    minio?: number;
    minioConsole?: number;
    stripeMock?: number;
    jaeger?: { otlp: number; query: number; queryGrpc: number };
  };
  /** Where the Temporal UI decodes payloads: the API's codec endpoint. */
  uiCodecEndpoint?: string;
  /** Without a UI and with workflows in memory: for tests. */
  ephemeralTemporal?: boolean;
  /** Which services to start; the others are external (configured) or not needed. */
  start: { postgres: boolean; temporal: boolean; minio: boolean; stripeMock?: boolean; jaeger?: boolean };
  /** PostgreSQL's server settings for this start. */
  postgresSettings?: Record<string, string>;
  log: (msg: string) => void;
}

export interface LocalStack {
  databaseUrl?: string;
  temporalAddress?: string;
  temporalUiUrl?: string;
  s3?: { endpoint: string; accessKey: string; secretKey: string; consoleUrl: string };
  /** Stripe's mock: its base URL, and how to run it again on the same port after stopping it. */
  stripeMock?: { url: string; stop(): Promise<void>; restart(): Promise<void> };
  /** Jaeger: where spans go, and its query API. */
  jaeger?: { otlpEndpoint: string; queryUrl: string };
  stop(): Promise<void>;
}

// Local-only MinIO credentials: the server listens on loopback and holds dev data.
const MINIO_DEV = { accessKey: 'compute-dev', secretKey: 'compute-dev-secret' };

/** Starts the real infrastructure from the project's own tools, data under one folder. */
export async function startLocalStack(opts: LocalStackOptions): Promise<LocalStack> {
  await fs.mkdir(opts.dataDir, { recursive: true });
  const logs = path.join(opts.dataDir, 'logs');
  await fs.mkdir(logs, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stack: LocalStack = {
    async stop() {
      for (const stop of stops.reverse()) await stop().catch(() => undefined);
    },
  };
  try {
    // Build tools first (minutes on a fresh machine), one at a time: there are only two cores.
    const temporalBin = opts.start.temporal ? await ensureTool('temporal', opts.toolsDir, opts.log) : '';
    const minioBin = opts.start.minio ? await ensureTool('minio', opts.toolsDir, opts.log) : '';
    const stripeBin = opts.start.stripeMock ? await ensureTool('stripe-mock', opts.toolsDir, opts.log) : '';
    const jaegerBin = opts.start.jaeger ? await ensureTool('jaeger', opts.toolsDir, opts.log) : '';
    if (opts.start.postgres) {
      const pg = await startPostgres({
        dataDir: path.join(opts.dataDir, 'postgres'),
        port: opts.ports.postgres,
        settings: opts.postgresSettings,
      });
      stops.push(pg.stop);
      stack.databaseUrl = pg.url;
    }
    if (opts.start.temporal) {
      const temporal = await startTemporalDevServer({
        binary: temporalBin,
        port: opts.ports.temporal,
        uiPort: opts.ports.temporalUi,
        uiCodecEndpoint: opts.uiCodecEndpoint,
        headless: Boolean(opts.ephemeralTemporal),
        dbFile: opts.ephemeralTemporal ? undefined : path.join(opts.dataDir, 'temporal.db'),
        logFile: path.join(logs, 'temporal.log'),
      });
      stops.push(temporal.stop);
      stack.temporalAddress = temporal.address;
      stack.temporalUiUrl = temporal.uiUrl;
    }
    if (opts.start.minio && opts.ports.minio && opts.ports.minioConsole) {
      const minio = await startMinio({
        binary: minioBin,
        dataDir: path.join(opts.dataDir, 'minio'),
        port: opts.ports.minio,
        consolePort: opts.ports.minioConsole,
        ...MINIO_DEV,
        logFile: path.join(logs, 'minio.log'),
      });
      stops.push(minio.stop);
      stack.s3 = { endpoint: minio.endpoint, consoleUrl: minio.consoleUrl, ...MINIO_DEV };
    }
    if (opts.start.stripeMock && opts.ports.stripeMock) {
      const run = () =>
        startStripeMock({
          binary: stripeBin,
          port: opts.ports.stripeMock!,
          httpsSocket: path.join(opts.dataDir, 'stripe-mock-https.sock'),
          logFile: path.join(logs, 'stripe-mock.log'),
        });
      let current: Awaited<ReturnType<typeof startStripeMock>> | null = await run();
      const stop = async () => {
        await current?.stop();
        current = null;
        await fs.rm(path.join(opts.dataDir, 'stripe-mock-https.sock'), { force: true });
      };
      stops.push(stop);
      stack.stripeMock = {
        url: current.url,
        stop,
        restart: async () => {
          await stop();
          current = await run();
        },
      };
    }
    if (opts.start.jaeger && opts.ports.jaeger) {
      const jaeger = await startJaeger({
        binary: jaegerBin,
        otlpPort: opts.ports.jaeger.otlp,
        queryPort: opts.ports.jaeger.query,
        queryGrpcPort: opts.ports.jaeger.queryGrpc,
        logFile: path.join(logs, 'jaeger.log'),
      });
      stops.push(jaeger.stop);
      stack.jaeger = { otlpEndpoint: jaeger.otlpEndpoint, queryUrl: jaeger.queryUrl };
    }
    return stack;
  } catch (err) {
    await stack.stop();
    throw err;
  }
}
