import type { JobState } from '../types';

/** A job's state as text (the colour only repeats it). */
export function StateBadge({ state }: { state: JobState }) {
  return <span class={`state state-${state.toLowerCase()}`}>{state}</span>;
}
