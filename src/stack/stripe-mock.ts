import { startChild } from './child';
import { assertPortFree } from './ports';

export interface StripeMockOptions {
  binary: string;
  port: number;
  /** Where its HTTPS listener goes: a socket file, so it takes no second TCP port. */
  httpsSocket: string;
  logFile: string;
  readyTimeoutMs?: number;
}

export interface RunningStripeMock {
  /** Base URL for the SDK (`STRIPE_API_BASE`). */
  url: string;
  stop(): Promise<void>;
}

/**
 * Runs Stripe's stripe-mock on 127.0.0.1: it validates each request against Stripe's OpenAPI
 * document and answers with fixtures, keeping no state. Ready once an authenticated GET answers.
 */
export async function startStripeMock(opts: StripeMockOptions): Promise<RunningStripeMock> {
  const url = `http://127.0.0.1:${opts.port}`;
  await assertPortFree('127.0.0.1', opts.port);
  const child = startChild({
    command: opts.binary,
    args: ['-http-addr', `127.0.0.1:${opts.port}`, '-https-unix', opts.httpsSocket],
    env: {},
    logFile: opts.logFile,
  });
  let gone = false;
  child.exited.then(
    () => (gone = true),
    () => (gone = true),
  );
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (gone) throw new Error(`stripe-mock exited before it was ready; see ${opts.logFile}`);
    const res = await fetch(`${url}/v1/balance`, {
      headers: { authorization: 'Bearer sk_test_ready' },
      signal: AbortSignal.timeout(1000),
    }).catch(() => null);
    if (res?.status === 200) break;
    if (Date.now() > deadline) {
      await child.stop();
      throw new Error(`stripe-mock at ${url} not ready; see ${opts.logFile}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, stop: () => child.stop() };
}
