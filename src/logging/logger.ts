import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { logContext } from './context';

/**
 * JSON lines where logs are collected (a pipe, a file); one readable line per entry when pino's
 * destination, stdout, is a terminal. The pretty printer runs synchronously in this thread (not a
 * worker transport), so the last lines before an exit are never lost. Or JSON to `destination`.
 */
export function createLogger(level: string, name = 'compute', destination?: pino.DestinationStream): Logger {
  // Each line carries the request, workflow or job it was written for (./context.ts).
  const mixin = () => logContext.getStore() ?? {};
  if (destination) return pino({ name, level, mixin }, destination);
  if (!process.stdout.isTTY) return pino({ name, level, mixin });
  // No pid and hostname on each line (a terminal shows one process); a job's own `pid` still shows.
  return pino(
    { name, level, base: {}, mixin },
    pretty({ colorize: true, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', destination: 1 }),
  );
}
