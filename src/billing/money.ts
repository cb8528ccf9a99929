// Money stays an exact decimal string from PostgreSQL's `numeric` to the rendering edge: sums and
// products are computed in SQL, never in JS floats. A JSON number is made only when a record is
// rendered, from a figure short enough (at most 15 significant digits) to read back unchanged.

/** What PostgreSQL's numeric prints: an optional minus, digits, an optional fraction. */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** `0.000024000000` → `0.000024`, `5.000000` → `5`: the same amount, written as short as it goes. */
export function trimDecimal(value: string): string {
  if (!DECIMAL.test(value)) throw new Error(`not a decimal: ${JSON.stringify(value)}`);
  const [whole, fraction = ''] = value.split('.');
  const kept = fraction.replace(/0+$/, '');
  const sign = whole.startsWith('-') ? '-' : '';
  const digits = whole.replace(/^-?0*(?=\d)/, '');
  return digits === '0' && !kept ? '0' : `${sign}${digits}${kept ? `.${kept}` : ''}`;
}

/** A decimal string as a JSON number, for rendering only; refused when a double could not carry it exactly. */
export function usdNumber(value: string): number {
  const exact = trimDecimal(value);
  const significant = exact.replace(/^-/, '').replace('.', '').replace(/^0+/, '');
  if (significant.length > 15) throw new Error(`${exact} has more digits than a JSON number carries exactly`);
  return Number(exact);
}

/** The largest prepaid credit an operator may set: 9 integer digits and 6 decimals still render exactly. */
export const MAX_CREDIT_USD = '999999999.999999';

/**
 * An amount of USD as typed by an operator: digits, at most 6 decimals, at least 0, at most
 * MAX_CREDIT_USD; returned trimmed. Anything else is refused with a message saying what is wanted.
 */
export function parseUsdAmount(text: string): string {
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!m) {
    const why = /^\s*-/.test(text)
      ? 'must not be negative'
      : /^\s*\d+\.\d{7,}\s*$/.test(text)
        ? 'has more than 6 decimals'
        : /^\s*\d{10,}(\.\d*)?\s*$/.test(text)
          ? `is more than ${MAX_CREDIT_USD}`
          : 'is not a decimal amount like 25 or 12.50';
    throw new RangeError(`${JSON.stringify(text)} ${why} (USD: 0 to ${MAX_CREDIT_USD}, at most 6 decimals)`);
  }
  return trimDecimal(m[2] ? `${m[1]}.${m[2]}` : m[1]);
}

/** The exact order of two non-negative amounts of at most 6 decimals (as parseUsdAmount and numeric(20,6) give them): <0, 0 or >0. */
export function compareUsd(a: string, b: string): number {
  const micros = (v: string) => {
    const [whole, fraction = ''] = trimDecimal(v).split('.');
    return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0').slice(0, 6));
  };
  const d = micros(a) - micros(b);
  return d === 0n ? 0 : d > 0n ? 1 : -1;
}
