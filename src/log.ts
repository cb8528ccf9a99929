import pino, { type Logger } from 'pino';

export function createLogger(level: string, name = 'compute'): Logger {
  return pino({ name, level });
}
