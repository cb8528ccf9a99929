import type { Context } from 'koa';
import type { PollCaller, Polled } from '../../agents/poll';
import type { CredentialSlots } from '../credential-slots';
import { LateAnswer, type RenderLate } from '../late-answer';
import { assignedJobA } from './render';
import { originOf, requestOrigin } from './request-origin';

/** What a poll answers on Surface A. */
export interface PollPayload {
  jobs: ReturnType<typeof assignedJobA>[];
  cancel: string[];
}

type UploadTemplate = (origin: string, job: { id: string; timeoutSeconds: number }, leaseId: string) => string;

/**
 * The HTTP side of one long poll: the route's own answer while it claims, and once it waits, an
 * answer outside the middleware chain (LateAnswer). From then on it holds what that answer needs
 * and the request's origin, not the request's context: a waiting poll holds this, its PollRun and
 * its ticket, and Node's own request (see bench:fleet). It is the poll's client-gone signal too.
 */
export class PollReply extends LateAnswer implements PollCaller {
  // The request's origin in two parts, joined only for an answer with jobs: a joined origin is a
  // new string of its own per waiting poll.
  private protocol?: string;
  private host?: string;
  /** The request's context until the chain lets go of it (waits). */
  private ctx?: Context;

  constructor(
    ctx: Context,
    private settle:
      { resolve: (payload: PollPayload | undefined) => void; reject: (error: unknown) => void } | undefined,
    private readonly slots: Pick<CredentialSlots, 'leave'>,
    /** Whose poll slot it holds (credentialSlots), until it gives it back. */
    private credentialId: string | undefined,
    render: RenderLate,
    private readonly uploadTemplate: UploadTemplate,
  ) {
    super(ctx, render);
    this.ctx = ctx;
  }

  waits(): void {
    const ctx = this.ctx;
    if (!ctx || !this.settle) return;
    this.protocol = ctx.protocol;
    this.host = ctx.host;
    this.detach(ctx);
    const { resolve } = this.settle;
    this.ctx = this.settle = undefined;
    resolve(undefined);
  }

  done(error: unknown, out?: Polled): void {
    if (this.credentialId !== undefined) this.slots.leave(this.credentialId);
    this.credentialId = undefined;
    let payload: PollPayload | undefined;
    if (out)
      try {
        payload = this.payload(out);
      } catch (err) {
        error = err;
      }
    if (this.detached) return error ? this.fail(error) : this.send(payload);
    const settle = this.settle;
    this.ctx = this.settle = undefined;
    if (error) settle?.reject(error);
    else settle?.resolve(payload);
  }

  private payload(out: Polled): PollPayload {
    const origin = this.ctx ? requestOrigin(this.ctx) : originOf(this.protocol!, this.host!);
    return {
      jobs: out.jobs.map((a) => assignedJobA(a, this.uploadTemplate(origin, a.job, a.leaseId))),
      cancel: out.cancel,
    };
  }
}
