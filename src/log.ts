import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

/**
 * JSON lines where logs are collected (a pipe, a file); one readable line per entry when pino's
 * destination, stdout, is a terminal. The pretty printer runs synchronously in this thread (not a
 * worker transport), so the last lines before an exit are never lost.
 */
export function createLogger(level: string, name = 'compute'): Logger {
  if (!process.stdout.isTTY) return pino({ name, level });
  // No pid and hostname on each line (a terminal shows one process); a job's own `pid` still shows.
  return pino({ name, level, base: {} }, pretty({ colorize: true, sync: true, singleLine: true, translateTime: 'SYS:HH:MM:ss.l', destination: 1 }));
}
