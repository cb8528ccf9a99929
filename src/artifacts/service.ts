import { artifactBytes } from '../metrics/registry';
import type { Knex } from 'knex';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import { AppError, notAssigned, notFound } from '../shared/errors';
import { newId } from '../shared/ids';
import { type ObjectStore, ObjectTooLarge } from './object-store';
import { ID_PLACEHOLDER, type UrlSigner } from './signed-urls';
import { holdsLease } from '../jobs/lease';
import { downloadPath, uploadPath } from './url-paths';

// Artifacts of a job: stored in object storage under workspace/job/id, recorded in `artifacts`,
// listed with the job when it is read (the job row keeps no copy). Every byte moves through URLs that authorize themselves.

const ARTIFACT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
const MAX_ARTIFACTS_PER_JOB = 1000;
/** An agent's upload template outlives the job's timeout by this much: uploads come after the command. */
const TEMPLATE_GRACE_SECONDS = 3600;
/** Class of pg_advisory_xact_lock(class, key) under which one upload of a job commits at a time. */
const LOCK_ARTIFACT_COMMIT = 7401;

const tooMany = () => new AppError('resource.conflict', `A job keeps at most ${MAX_ARTIFACTS_PER_JOB} artifacts`);
/** How many artifacts the job holds besides `id` (replacing an artifact does not add one). */
const countOthers = async (q: Knex, jobId: string, id: string) =>
  Number((await q('artifacts').where({ job_id: jobId }).whereNot({ id }).count({ count: '*' }))[0].count);

export interface ArtifactRecord {
  jobId: string;
  id: string;
  name: string;
  size: number;
  sha256: string;
  contentType: string;
  objectKey: string;
  createdAt: string;
}

export interface ArtifactsDeps {
  db: Knex;
  store?: ObjectStore;
  signer: UrlSigner;
  config: Pick<ApiConfig, 'artifacts' | 'dependencyRetryAfterSeconds' | 'http'>;
}

const epochSeconds = (ms: number) => Math.floor(ms / 1000);

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const recordFromRow = (r: any): ArtifactRecord => ({
  jobId: r.job_id,
  id: r.id,
  name: r.name,
  size: Number(r.size),
  sha256: r.sha256,
  contentType: r.content_type,
  objectKey: r.object_key,
  createdAt: new Date(r.created_at).toISOString(),
});

export function createArtifactsService({ db, store, signer, config }: ArtifactsDeps) {
  const requireStore = () => {
    if (!store)
      throw new AppError(
        'dependency.unavailable',
        'No object storage is configured (S3_ENDPOINT)',
        undefined,
        config.dependencyRetryAfterSeconds,
      );
    return store;
  };
  const requireSession = (principal: Principal) => {
    if (principal.credential !== 'jwt')
      throw new AppError(
        'auth.forbidden',
        'Presigned URLs need a session token (Authorization: Bearer), not an API key',
      );
  };
  const jobOfWorkspace = async (principal: Principal, jobId: string) => {
    const job = await db('jobs').where({ id: jobId, workspace_id: principal.workspaceId }).first('id');
    if (!job) throw notFound('job');
  };
  let uploading = 0;
  const ttlOf = (ttlSeconds?: number) => ttlSeconds ?? config.artifacts.urlTtlSeconds;
  // PUBLIC_URL when the API sits behind a proxy; else the origin the caller reached us at.
  const base = (requestOrigin: string) => config.http.publicUrl?.replace(/\/$/, '') ?? requestOrigin;

  return {
    /** The upload URL a poll hands an agent with each job: `{id}` is the agent's to fill. */
    uploadTemplate(origin: string, job: { id: string; timeoutSeconds: number }, leaseId: string): string {
      const path = uploadPath(job.id, ID_PLACEHOLDER);
      const expiresAt = epochSeconds(Date.now()) + job.timeoutSeconds + TEMPLATE_GRACE_SECONDS;
      return `${base(origin)}${path}?${signer.sign({ method: 'PUT', path, expiresAt, lease: leaseId })}`;
    },

    async presignUpload(principal: Principal, origin: string, input: { jobId: string; ttlSeconds?: number }) {
      requireSession(principal);
      await jobOfWorkspace(principal, input.jobId);
      const id = newId('art');
      const path = uploadPath(input.jobId, id);
      const expiresAt = epochSeconds(Date.now()) + ttlOf(input.ttlSeconds);
      return {
        id,
        method: 'PUT' as const,
        url: `${base(origin)}${path}?${signer.sign({ method: 'PUT', path, expiresAt })}`,
        expiresAt: new Date(expiresAt * 1000).toISOString(),
      };
    },

    async presignDownload(
      principal: Principal,
      origin: string,
      input: { jobId: string; id: string; ttlSeconds?: number },
    ) {
      requireSession(principal);
      await jobOfWorkspace(principal, input.jobId);
      const exists = await db('artifacts')
        .where({ job_id: input.jobId, id: input.id, workspace_id: principal.workspaceId })
        .first('id');
      if (!exists) throw notFound('artifact');
      const path = downloadPath(input.jobId, input.id);
      const expiresAt = epochSeconds(Date.now()) + ttlOf(input.ttlSeconds);
      return {
        method: 'GET' as const,
        url: `${base(origin)}${path}?${signer.sign({ method: 'GET', path, expiresAt })}`,
        expiresAt: new Date(expiresAt * 1000).toISOString(),
      };
    },

    /**
     * Stores one upload. The URL was verified by the caller; `lease` is the one it carries. A
     * lease that no longer holds the job is 409 before a byte is stored, and again at the end (the
     * job may move on during a long upload); then nothing is kept.
     */
    async receive(
      input: { jobId: string; id: string; lease?: string; name?: string; contentType?: string; contentLength?: number },
      body: AsyncIterable<Buffer>,
    ): Promise<{ id: string; size: number; sha256: string }> {
      if (!ARTIFACT_ID.test(input.id))
        throw new AppError(
          'request.invalid',
          'An artifact id is 1-128 of A-Z a-z 0-9 . _ - and starts with a letter or digit',
        );
      const name = input.name ?? input.id;
      if (name.length === 0 || name.length > 1024)
        throw new AppError('request.invalid', 'An artifact name is 1-1024 characters');
      const { maxBytes } = config.artifacts;
      if (input.contentLength !== undefined && input.contentLength > maxBytes) throw new ObjectTooLarge(maxBytes);
      // The lock waits out a claim still committing (its answer may have reached the agent first).
      const job = await db('jobs')
        .where({ id: input.jobId })
        .forShare()
        .first('workspace_id', 'lease_id', 'agent_id', 'state');
      if (!job) throw notFound('job');
      if (input.lease && !holdsLease(job, input.lease)) throw notAssigned();
      // Refused before a byte is stored; the commit counts again, since uploads run side by side.
      if ((await countOthers(db, input.jobId, input.id)) >= MAX_ARTIFACTS_PER_JOB) throw tooMany();

      const objects = requireStore();
      // Each upload holds about two parts in memory: bound how many one instance takes at once.
      if (uploading >= config.artifacts.maxConcurrentUploads) {
        throw new AppError(
          'rate_limit.exceeded',
          `${uploading} uploads are in progress on this instance; retry shortly`,
          undefined,
          1,
        );
      }
      // Every upload its own object: a replaced or refused upload never touches another's bytes.
      const objectKey = `${job.workspace_id}/${input.jobId}/${input.id}/${newId('art')}`;
      const contentType = input.contentType || 'application/octet-stream';
      uploading++;
      const stored = await objects.upload(objectKey, body, { maxBytes, contentType }).finally(() => uploading--);
      artifactBytes.inc({ direction: 'upload' }, stored.size);
      const kept = await db.transaction(async (trx) => {
        // One commit per job at a time: uploads that all passed the early count cannot all land
        // past the cap.
        await trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [LOCK_ARTIFACT_COMMIT, input.jobId]);
        if (input.lease) {
          const now = await trx('jobs').where({ id: input.jobId }).forShare().first('lease_id', 'agent_id', 'state');
          if (!now || !holdsLease(now, input.lease)) return { kept: false as const, refusal: notAssigned() };
        }
        if ((await countOthers(trx, input.jobId, input.id)) >= MAX_ARTIFACTS_PER_JOB)
          return { kept: false as const, refusal: tooMany() };
        const earlier = await trx('artifacts')
          .where({ job_id: input.jobId, id: input.id })
          .forUpdate()
          .first('object_key');
        await trx('artifacts')
          .insert({
            job_id: input.jobId,
            id: input.id,
            workspace_id: job.workspace_id,
            name,
            size: stored.size,
            sha256: stored.sha256,
            content_type: contentType,
            object_key: objectKey,
            lease_id: input.lease ?? null,
          })
          .onConflict(['job_id', 'id'])
          .merge(['name', 'size', 'sha256', 'content_type', 'object_key', 'lease_id', 'created_at']);
        return { kept: true as const, replaced: earlier?.object_key as string | undefined };
      });
      if (!kept.kept) {
        await objects.remove(objectKey).catch(() => undefined);
        throw kept.refusal;
      }
      // The record points at the new object from the commit on; the one it replaced is unused.
      if (kept.replaced && kept.replaced !== objectKey) await objects.remove(kept.replaced).catch(() => undefined);
      return { id: input.id, ...stored };
    },

    /** The artifact a verified download URL names, and a reader of its bytes. */
    async open(jobId: string, id: string) {
      const row = await db('artifacts').where({ job_id: jobId, id }).first();
      if (!row) throw notFound('artifact');
      const artifact = recordFromRow(row);
      const objects = requireStore();
      return { artifact, read: (range?: { start: number; end: number }) => objects.read(artifact.objectKey, range) };
    },
  };
}

export type ArtifactsService = ReturnType<typeof createArtifactsService>;
