import { type DataKeys, createDataKeys, resolveCodecKeys } from '../../src/crypto/data-keys';
import { testEnv } from './env';

/** The data keys the suite's API and worker use (the codec key in the suite's data folder). */
export async function suiteDataKeys(): Promise<DataKeys> {
  return createDataKeys(testEnv().db, await resolveCodecKeys(testEnv().config));
}
