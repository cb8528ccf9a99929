/**
 * A `timestamptz` as PostgreSQL writes it in text (`2026-12-06 11:00:00.123456+00`), read without
 * a regular expression: every job, attempt and key row carries several, and pg's general parser
 * (postgres-date) costs about 0.7 µs each. Answers exactly what that parser answers, including its
 * milliseconds (`1000 * parseFloat(fraction)`, cut to an integer by the Date), or undefined for
 * anything but the common form (a year before 100 or past 9999, BC, infinity, another DateStyle),
 * which is then the general parser's (src/db/knex.ts). test/unit/timestamptz.test.ts holds the two
 * to the same answers.
 */
export function fastTimestamptz(text: string): Date | undefined {
  // YYYY-MM-DD HH:MM:SS, then an optional .fraction, then ±HH[:MM[:SS]]
  if (text.length < 22 || !shaped(text)) return undefined;
  const year = digits(text, 0, 4);
  if (year < 100) return undefined;
  let at = 19;
  let ms = 0;
  if (text.charCodeAt(at) === 46 /* . */) {
    let end = at + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    if (end === at + 1) return undefined;
    ms = 1000 * parseFloat(text.slice(at, end));
    at = end;
  }
  const sign = text.charCodeAt(at);
  if (sign !== 43 /* + */ && sign !== 45 /* - */) return undefined;
  const rest = text.length - at - 1;
  if (rest !== 2 && rest !== 5 && rest !== 8) return undefined;
  const hh = digits(text, at + 1, 2);
  const mm = rest < 5 ? 0 : text.charCodeAt(at + 3) === 58 /* : */ ? digits(text, at + 4, 2) : -1;
  const ss = rest < 8 ? 0 : text.charCodeAt(at + 6) === 58 /* : */ ? digits(text, at + 7, 2) : -1;
  if (hh < 0 || mm < 0 || ss < 0) return undefined;
  const offsetMs = (sign === 45 ? -1000 : 1000) * (hh * 3600 + mm * 60 + ss);
  const utc = Date.UTC(
    year,
    digits(text, 5, 2) - 1,
    digits(text, 8, 2),
    digits(text, 11, 2),
    digits(text, 14, 2),
    digits(text, 17, 2),
    ms,
  );
  return new Date(utc - offsetMs);
}

/** The separators of `YYYY-MM-DD HH:MM:SS` in place, and digits everywhere else in it. */
function shaped(text: string): boolean {
  for (let i = 0; i < 19; i++) {
    const c = text.charCodeAt(i);
    const want = i === 4 || i === 7 ? 45 : i === 10 ? 32 : i === 13 || i === 16 ? 58 : -1;
    if (want === -1 ? !isDigit(c) : c !== want) return false;
  }
  return true;
}

const isDigit = (c: number) => c >= 48 && c <= 57;

/** The number the `count` digits at `at` spell, or -1 if one is not a digit. */
function digits(text: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = text.charCodeAt(i);
    if (!isDigit(c)) return -1;
    n = n * 10 + (c - 48);
  }
  return n;
}
