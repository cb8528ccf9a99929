import { useState } from 'preact/hooks';
import { type Problem, problemOf } from './api';

/**
 * A control's call to the API: busy while it runs (so a double click sends it once), and what it
 * met shown as a problem until the next try.
 */
export function useAction(): {
  busy: boolean;
  problem?: Problem;
  run: (work: () => Promise<unknown>) => Promise<boolean>;
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem>();
  const run = async (work: () => Promise<unknown>) => {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
      return true;
    } catch (err) {
      setProblem(problemOf(err));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, problem, run, clear: () => setProblem(undefined) };
}
