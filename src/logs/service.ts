import type { Knex } from 'knex';
import type { Config } from '../config';
import { createLogPush } from './push';
import { LOG_PAGE, readLog } from './read';

export type { PushedLine, StoredLines } from './push';
export type { LogEvent, LogPage } from './read';
export { LOG_PAGE } from './read';

/** A job's log: pushed by its agent (push.ts), read back by clients and followers (read.ts). */
export function createLogsService({ db, config }: { db: Knex; config: Config }) {
  const { push, onStored } = createLogPush({ db, config });
  return {
    push,
    read: (jobId: string, afterSeq: number, page: Partial<typeof LOG_PAGE> = {}) => readLog(db, jobId, afterSeq, page),
    onStored,
  };
}

export type LogsService = ReturnType<typeof createLogsService>;
