import type { ApiConfig } from '../config';

/**
 * A job log's budget. A line costs its UTF-8 bytes plus a fixed overhead (what a row costs
 * PostgreSQL besides its text), so empty lines are not free; the head and the tail each hold at
 * most half of the cost and half of the lines.
 */
export interface LogBudget {
  overhead: number;
  half: { cost: number; lines: number };
}

export function logBudgetOf(limits: ApiConfig['limits']): LogBudget {
  return {
    overhead: limits.logLineOverheadBytes,
    half: { cost: Math.floor(limits.logBytesPerJob / 2), lines: Math.floor(limits.logLinesPerJob / 2) },
  };
}

export const costOf = (budget: LogBudget, lines: number, bytes: number) => bytes + lines * budget.overhead;

/** A log as its job row describes it: line bytes and line counts of the head and of the tail. */
export interface LogShape {
  headLines: number;
  headBytes: number;
  /** The head is closed by a truncation marker; every later line belongs to the tail. */
  marked: boolean;
  tailLines: number;
  tailBytes: number;
}

/** Where a push's lines (given by their byte lengths, oldest first) go. */
export interface PushPlan {
  /** The first `head` lines join the head. */
  head: number;
  /** The head is full before the rest: a marker goes between (the log has none yet). */
  openMarker: boolean;
  /** After the head lines, this many are dropped unstored: newer lines of the push fill the tail. */
  unstored: number;
  /** What the stored tail must lose, oldest lines first, for the rest to fit after it. */
  trim?: { lines: number; cost: number };
}

/**
 * Plans a push so the tail is always the newest lines that fit: the push's newest lines that fit
 * a tail of their own are kept, and the oldest stored tail lines make room for them (all of them
 * when a line of the push itself had to go).
 */
export function planPush(budget: LogBudget, log: LogShape, bytes: number[]): PushPlan {
  const { half } = budget;
  let head = 0;
  for (let used = log.headBytes; !log.marked && head < bytes.length; head++) {
    const lines = log.headLines + head + 1;
    if (lines > half.lines || costOf(budget, lines, used + bytes[head]) > half.cost) break;
    used += bytes[head];
  }
  const rest = bytes.length - head;
  let kept = 0;
  let keptBytes = 0;
  while (kept < rest) {
    const next = bytes[bytes.length - 1 - kept];
    if (kept + 1 > half.lines || costOf(budget, kept + 1, keptBytes + next) > half.cost) break;
    keptBytes += next;
    kept++;
  }
  const plan: PushPlan = { head, openMarker: !log.marked && rest > 0, unstored: rest - kept };
  if (rest > 0 && log.tailLines > 0) {
    const excess =
      plan.unstored > 0
        ? { lines: log.tailLines, cost: 0 }
        : {
            lines: log.tailLines + kept - half.lines,
            cost: costOf(budget, log.tailLines + kept, log.tailBytes + keptBytes) - half.cost,
          };
    if (excess.lines > 0 || excess.cost > 0) plan.trim = excess;
  }
  return plan;
}
