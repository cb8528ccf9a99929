/**
 * What a long wait needs of an AbortSignal: whether it fired, and a listener. An AbortSignal is
 * one; src/http/late-answer.ts makes a lighter one for a waiting poll.
 */
export interface Hangup {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: HangupListener, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: HangupListener): void;
}

/** A function, or an object whose `handleEvent` is called (as an EventTarget's listener may be): no closure needed. */
export type HangupListener = (() => void) | { handleEvent(): void };
