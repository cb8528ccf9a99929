/** Timestamps as the API renders them (CONTRACT §1): ISO 8601 UTC with milliseconds. */
export const iso = (v: Date | string): string => new Date(v).toISOString();

/** As `iso`, for a column that may be empty. */
export const isoOrNull = (v: Date | string | null | undefined): string | null =>
  v === null || v === undefined ? null : iso(v);
