import type { Knex } from 'knex';
import type { ApiConfig } from '../config';
import type { Turns } from '../jobs/turns';
import { createLogPush } from './push';
import { LOG_PAGE, readLog } from './read';

export type { PushedLine, StoredLines } from './push';
export type { LogEvent, LogPage } from './read';
export { LOG_PAGE } from './read';

/** A job's log: pushed by its agent (push.ts), read back by clients and followers (read.ts). */
export function createLogsService({
  db,
  config,
  turns,
}: {
  db: Knex;
  config: Pick<ApiConfig, 'limits'>;
  turns: Pick<Turns, 'push'>;
}) {
  const { push, onStored } = createLogPush({ db, config, turns });
  return {
    push,
    read: (jobId: string, afterSeq: number, page: Partial<typeof LOG_PAGE> = {}) => readLog(db, jobId, afterSeq, page),
    onStored,
  };
}

export type LogsService = ReturnType<typeof createLogsService>;
