import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { computeCodec } from '../../src/temporal/data-converter';
import { suiteDataKeys } from './data-keys';
import { testEnv } from './env';

let converter: Promise<DataConverter> | undefined;

/** The data converter of the suite's API and worker: payloads sealed with the suite's keys. */
export function suiteDataConverter(): Promise<DataConverter> {
  converter ??= suiteDataKeys().then(async (keys) => (await computeCodec(testEnv().db, testEnv().config, keys)).dataConverter);
  return converter;
}

/** A Temporal client on the suite's stack that reads and writes payloads as the service does. */
export async function suiteClient(connection?: Connection): Promise<Client> {
  return new Client({
    connection: connection ?? (await Connection.connect({ address: testEnv().config.temporal.address! })),
    namespace: testEnv().config.temporal.namespace,
    dataConverter: await suiteDataConverter(),
  });
}
