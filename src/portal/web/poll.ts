import { useEffect, useRef } from 'preact/hooks';

/**
 * Runs `load` now and every `everyMs` while `active` (and the tab is visible), never two at
 * once; a change of `deps` starts over. The jobs list has no change stream to follow: polling
 * keeps it current.
 */
export function usePolling(
  load: (signal: AbortSignal) => Promise<void>,
  everyMs: number,
  active: boolean,
  deps: unknown[],
): void {
  const latest = useRef(load);
  latest.current = load;
  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      if (!document.hidden) await latest.current(controller.signal).catch(() => undefined);
      if (active && !controller.signal.aborted) timer = setTimeout(tick, everyMs);
    };
    void tick();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [...deps, active, everyMs]);
}
