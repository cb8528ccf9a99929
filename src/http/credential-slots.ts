import { AppError } from '../shared/errors';

/** One credential's hold on a slot; its release is idempotent. */
export class Slot {
  private released = false;
  constructor(
    private readonly held: Map<string, number>,
    private readonly credentialId: string,
  ) {}

  release(): void {
    if (this.released) return;
    this.released = true;
    const left = (this.held.get(this.credentialId) ?? 1) - 1;
    if (left > 0) this.held.set(this.credentialId, left);
    else this.held.delete(this.credentialId);
  }
}

/**
 * Counts long-lived requests (log streams, long polls) per credential on this instance, so one
 * credential cannot hold every socket and waiter. Past the cap the request is 429.
 */
export function credentialSlots(what: string, perCredential: number) {
  const held = new Map<string, number>();
  const take = (credentialId: string): Slot => {
    const n = held.get(credentialId) ?? 0;
    if (n >= perCredential) {
      throw new AppError(
        'rate_limit.exceeded',
        `This credential already holds ${perCredential} open ${what} on this instance`,
        { limit: perCredential },
        5,
      );
    }
    held.set(credentialId, n + 1);
    return new Slot(held, credentialId);
  };
  return {
    /** Takes a slot for `credentialId` (a waiting poll holds the slot itself, not a closure). */
    take,
    /** Takes a slot for `credentialId`; the returned release is idempotent. */
    acquire(credentialId: string): () => void {
      const slot = take(credentialId);
      return () => slot.release();
    },
  };
}

export type CredentialSlots = ReturnType<typeof credentialSlots>;
