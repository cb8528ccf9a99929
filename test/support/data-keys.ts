import { type DataKeys, createDataKeys, resolveCodecKeys } from '../../src/crypto/data-keys';
import { testEnv } from './env';

/** The data keys the suite's API and worker use (TEMPORAL_CODEC_KEYS of the suite's environment). */
export async function suiteDataKeys(): Promise<DataKeys> {
  return createDataKeys(testEnv().db, await resolveCodecKeys(testEnv().config));
}
