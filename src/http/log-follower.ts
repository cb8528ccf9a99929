import { sseStreamsOpen } from '../metrics/registry';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { ApiConfig } from '../config';
import type { Services } from '../services';
import type { JobState } from '../../workflows/definitions';
import { credentialSlots } from './credential-slots';
import { lastEventIdOf, streamJobLogs } from './log-stream';

/**
 * A surface's log SSE (CONTRACT §7), from Last-Event-ID on: at most SSE_STREAMS_PER_CREDENTIAL
 * streams per credential at once, each closed when its credential is revoked or expires. The
 * caller has checked the job is the principal's.
 */
export function logFollower(o: {
  services: Services;
  config: Pick<ApiConfig, 'durations' | 'limits'>;
  log: Logger;
  renderState: (s: JobState) => string;
}) {
  const streams = credentialSlots('log streams', o.config.limits.sseStreamsPerCredential);
  return (ctx: Context, principal: Principal, jobId: string, follow: boolean): void => {
    const afterSeq = lastEventIdOf(ctx);
    const release = streams.acquire(principal.credentialId);
    sseStreamsOpen.inc();
    let open = true;
    const onClose = () => {
      if (open) sseStreamsOpen.dec();
      open = false;
      release();
    };
    streamJobLogs(ctx, jobId, afterSeq, {
      credentialValid: () => o.services.auth.stillValid(principal),
      credentialExpiresAt: principal.expiresAt,
      onClose,
      logs: o.services.logs,
      feeds: o.services.feeds,
      logFollows: o.services.logFollows,
      keepAliveMs: o.config.durations.sseKeepAliveMs,
      maxBufferedBytes: o.config.limits.sseBufferBytes,
      log: o.log,
      renderState: o.renderState,
      follow,
    });
  };
}
