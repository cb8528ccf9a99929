import type { DataConverter } from '@temporalio/common';
import type { Knex } from 'knex';
import type { SharedSettings } from '../config';
import { type DataKeys, resolveCodecKeys } from '../crypto/data-keys';
import { type ComputeCodec, createPayloadCodec, jobWorkspaces } from './payload-codec';

export interface Codec {
  codec: ComputeCodec;
  /** Tells the codec a job's workspace as its submit starts it (its row may not be committed yet). */
  knowJob: (jobId: string, workspaceId: string) => void;
  /** For every Client and Worker of ours: the payloads go through the codec. */
  dataConverter: DataConverter;
}

/** The encrypting codec on TEMPORAL_CODEC_KEYS and the workspaces' data keys. */
export async function computeCodec(
  db: Knex,
  config: Pick<SharedSettings, 'temporal' | 'dataDir'>,
  dataKeys: DataKeys,
): Promise<Codec> {
  const workspaces = jobWorkspaces(db);
  const codec = createPayloadCodec({
    dataKeys,
    operatorKeys: await resolveCodecKeys(config),
    workspaceOf: workspaces.of,
    learn: workspaces.learn,
  });
  return { codec, knowJob: workspaces.know, dataConverter: { payloadCodecs: [codec] } };
}
