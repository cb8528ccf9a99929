import type { Hangup } from './hangup';

/**
 * At most `size` holders at once; others wait their turn in order, until their deadline or abort.
 */
export function createSemaphore(size: number) {
  let inside = 0;
  const waiting: Array<() => void> = [];
  const leave = () => {
    const next = waiting.shift();
    if (next) next();
    else inside--;
  };
  const once = () => {
    let done = false;
    return () => {
      if (!done) {
        done = true;
        leave();
      }
    };
  };

  /** Resolves to a release function, or null when the deadline passed or the signal aborted first. */
  function enter(deadline: number, signal?: Hangup): Promise<(() => void) | null> {
    if (inside < size) {
      inside++;
      return Promise.resolve(once());
    }
    return new Promise((resolve) => {
      const admit = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(once());
      };
      const giveUp = () => {
        const i = waiting.indexOf(admit);
        if (i >= 0) waiting.splice(i, 1);
        clearTimeout(timer);
        signal?.removeEventListener('abort', giveUp);
        resolve(null);
      };
      const timer = setTimeout(giveUp, Math.max(0, deadline - Date.now()));
      signal?.addEventListener('abort', giveUp, { once: true });
      waiting.push(admit);
    });
  }

  /**
   * Waits for one place as `enter` does, then takes whatever more are free now, up to `most` in
   * all (never one a waiter is owed); `leave` gives them all back.
   */
  async function enterUpTo(most: number, deadline: number, signal?: Hangup) {
    const first = await enter(deadline, signal);
    if (!first) return null;
    const held = [first];
    while (held.length < most && inside < size && waiting.length === 0) {
      inside++;
      held.push(once());
    }
    return { places: held.length, leave: () => held.forEach((release) => release()) };
  }

  return { enter, enterUpTo };
}
