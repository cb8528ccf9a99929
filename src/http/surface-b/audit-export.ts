import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { AuditFilter } from '../../audit/query';
import type { Principal } from '../../auth/principal';
import type { ApiConfig } from '../../config';
import type { Services } from '../../services';
import { AppError } from '../../shared/errors';
import { createSemaphore } from '../../shared/semaphore';
import { credentialSlots } from '../credential-slots';

/** What a refused export is told to wait, in seconds: exports free their slots as they finish. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Surface B's JSONL audit export: at most AUDIT_EXPORTS_PER_CREDENTIAL per credential and
 * AUDIT_EXPORTS_PER_INSTANCE on this instance at once (429 past either), each slot held until the
 * export ends, fails or its client leaves. The export reads a page only when the client has taken
 * the last one, so a client that stops reading holds a slot and its socket, never a database
 * connection; a credential revoked or expired meanwhile cuts the response at the next page.
 */
export function auditExporter(o: { services: Services; config: Pick<ApiConfig, 'limits'>; log: Logger }) {
  const { auditExportsPerCredential, auditExportsPerInstance } = o.config.limits;
  const perCredential = credentialSlots('audit exports', auditExportsPerCredential);
  const perInstance = createSemaphore(auditExportsPerInstance);
  return async (ctx: Context, principal: Principal, filter: AuditFilter): Promise<void> => {
    const leaveCredential = perCredential.acquire(principal.credentialId);
    // A deadline of now: past the bound the request is refused, not queued.
    const leaveInstance = await perInstance.enter(Date.now());
    if (!leaveInstance) {
      leaveCredential();
      throw new AppError(
        'rate_limit.exceeded',
        `This instance already serves ${auditExportsPerInstance} audit exports`,
        { limit: auditExportsPerInstance },
        RETRY_AFTER_SECONDS,
      );
    }
    const release = () => {
      leaveInstance();
      leaveCredential();
    };
    // Finished, failed or abandoned, the response closes; Koa destroys the stream with it.
    ctx.res.once('close', release);
    const stillValid = async () => {
      const valid = await o.services.auth.stillValid(principal);
      if (!valid)
        o.log.info({ credentialId: principal.credentialId }, 'audit export cut: its credential was revoked or expired');
      return valid;
    };
    try {
      const stream = await o.services.audit.export(principal, filter, { stillValid });
      stream.once('close', release);
      ctx.type = 'application/jsonl';
      ctx.body = stream;
    } catch (err) {
      release();
      throw err;
    }
  };
}

export type AuditExporter = ReturnType<typeof auditExporter>;
