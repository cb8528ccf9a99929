import type { WebhookSettings } from '../config';

/**
 * The wait after the `attempt`-th failed attempt (1-based): the first retry delay doubled per
 * attempt up to the cap, then spread by ±25% so receivers coming back are not hit in step.
 */
export function retryDelayMs(
  attempt: number,
  s: Pick<WebhookSettings, 'firstRetryMs' | 'maxRetryDelayMs'>,
  random: () => number = Math.random,
): number {
  const base = Math.min(s.maxRetryDelayMs, s.firstRetryMs * 2 ** Math.min(attempt - 1, 40));
  return Math.max(1, Math.round(base * (0.75 + 0.5 * random())));
}

/**
 * The attempts a delivery that always fails makes, as offsets from the first (ms): retried while
 * less than the retry window has passed, so the last attempt comes at or after it.
 */
export function retrySchedule(
  s: Pick<WebhookSettings, 'firstRetryMs' | 'maxRetryDelayMs' | 'retryWindowMs'>,
  random: () => number = Math.random,
): number[] {
  const at = [0];
  while (at[at.length - 1]! < s.retryWindowMs) at.push(at[at.length - 1]! + retryDelayMs(at.length, s, random));
  return at;
}
