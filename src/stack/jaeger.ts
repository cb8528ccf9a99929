import path from 'node:path';
import { startChild } from './child';
import { assertPortFree } from './ports';

export interface JaegerOptions {
  binary: string;
  /** Where OTLP over HTTP is taken (the services' OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlpPort: number;
  /** The query API (and the placeholder page the module's build serves for its UI). */
  queryPort: number;
  /** Its query gRPC listener, which the config cannot leave out. */
  queryGrpcPort: number;
  logFile: string;
  readyTimeoutMs?: number;
}

export interface RunningJaeger {
  /** The base URL the services export to. */
  otlpEndpoint: string;
  /** The query API: `/api/traces/{traceId}`, `/api/services`. */
  queryUrl: string;
  stop(): Promise<void>;
}

const CONFIG = path.resolve(__dirname, '../../deploy/jaeger/config.yaml');

/** Runs Jaeger v2 on 127.0.0.1 with traces in memory; ready once its query API answers. */
export async function startJaeger(opts: JaegerOptions): Promise<RunningJaeger> {
  for (const port of [opts.otlpPort, opts.queryPort, opts.queryGrpcPort]) await assertPortFree('127.0.0.1', port);
  const child = startChild({
    command: opts.binary,
    args: ['--config', `file:${CONFIG}`],
    env: {
      JAEGER_OTLP_PORT: String(opts.otlpPort),
      JAEGER_QUERY_PORT: String(opts.queryPort),
      JAEGER_QUERY_GRPC_PORT: String(opts.queryGrpcPort),
    },
    logFile: opts.logFile,
  });
  let gone = false;
  child.exited.then(
    () => (gone = true),
    () => (gone = true),
  );
  const queryUrl = `http://127.0.0.1:${opts.queryPort}`;
  const otlpEndpoint = `http://127.0.0.1:${opts.otlpPort}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (gone) throw new Error(`Jaeger exited before it was ready; see ${opts.logFile}`);
    const [query, otlp] = await Promise.all([
      fetch(`${queryUrl}/api/services`, { signal: AbortSignal.timeout(1000) }).catch(() => null),
      // An empty export is accepted once the receiver listens.
      fetch(`${otlpEndpoint}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(1000),
      }).catch(() => null),
    ]);
    if (query?.status === 200 && otlp?.status === 200) break;
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`Jaeger at ${queryUrl} not ready; see ${opts.logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { otlpEndpoint, queryUrl, stop: () => child.stop() };
}
