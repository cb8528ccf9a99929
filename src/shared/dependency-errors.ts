// Recognizes a PostgreSQL outage in whatever shape knex or pg reports it.
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = (err as { code?: string }).code;
  if (code && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
  return (
    err.name === 'KnexTimeoutError' ||
    // A pooled client whose connection broke mid-transaction refuses the ROLLBACK with "not queryable".
    /Connection terminated|connect ECONNREFUSED|timeout acquiring a connection|encountered a connection error and is not queryable/i.test(
      err.message,
    )
  );
}
