import { AppError } from '../shared/errors';

/**
 * Counts long-lived requests (log streams, long polls) per credential on this instance, so one
 * credential cannot hold every socket and waiter. Past the cap the request is 429.
 */
export function credentialSlots(what: string, perCredential: number) {
  const held = new Map<string, number>();
  const slots = {
    /** Takes a slot for `credentialId`, given back with `leave` once. */
    take(credentialId: string): void {
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
    },
    leave(credentialId: string): void {
      const left = (held.get(credentialId) ?? 1) - 1;
      if (left > 0) held.set(credentialId, left);
      else held.delete(credentialId);
    },
    /** Takes a slot for `credentialId`; the returned release is idempotent. */
    acquire(credentialId: string): () => void {
      slots.take(credentialId);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        slots.leave(credentialId);
      };
    },
  };
  return slots;
}

export type CredentialSlots = ReturnType<typeof credentialSlots>;
