// Domain errors carry a stable code (CONTRACT §8) and an HTTP status; each surface renders them
// in its own format. Anything that is not an AppError is rendered as 500 `internal`.

export type ErrorCode =
  | 'request.invalid'
  | 'job.unsupported_type'
  | 'version.unsupported'
  | 'auth.unauthenticated'
  | 'auth.forbidden'
  | 'billing.not_available'
  | 'auth.signature_invalid'
  | 'auth.url_expired'
  | 'resource.not_found'
  | 'job.invalid_state'
  | 'job.not_assigned'
  | 'resource.conflict'
  | 'request.too_large'
  | 'idempotency.mismatch'
  | 'rate_limit.exceeded'
  | 'quota.exceeded'
  | 'resource.limit_reached'
  | 'dependency.unavailable'
  | 'internal';

/**
 * The vocabulary as data: each code's HTTP status, its title (Surface B's problem `title`) and what
 * it means to a client and what to do. The docs page lists every entry, so a code added to the
 * union above cannot go undocumented: the Record does not typecheck without it.
 */
export const ERROR_CODES: Record<ErrorCode, { status: number; title: string; meaning: string }> = {
  'request.invalid': {
    status: 400,
    title: 'The request is invalid',
    meaning:
      'A parameter, header or body field is missing, malformed or unknown; Surface B names each bad field in `errors`. Fix the request; sending it again unchanged fails again.',
  },
  'job.unsupported_type': {
    status: 400,
    title: 'The job type is not supported',
    meaning:
      'The manifest asks for a job type this service does not run; `details.supported` lists the ones it does. Submit one of those.',
  },
  'version.unsupported': {
    status: 400,
    title: 'The API version is not supported',
    meaning: 'X-Compute-API-Version names a version this server does not speak. Send `v0` or leave the header out.',
  },
  'auth.unauthenticated': {
    status: 401,
    title: 'Authentication is required',
    meaning:
      'No credential was sent, or it is malformed, expired or revoked. /v0 takes Authorization: Bearer (a session token or a cpat_ access token); /api also takes X-API-Key. Log in again or use a valid credential.',
  },
  'auth.forbidden': {
    status: 403,
    title: 'The role does not allow this',
    meaning:
      'The caller is known but its role, key kind or quota settings do not allow this action. Ask a workspace admin for a role that does, or use another credential.',
  },
  'billing.not_available': {
    status: 403,
    title: 'Not available on this plan or service',
    meaning:
      "The workspace's plan has no such billing feature (invoices are for payg and team), or payments are not configured on this service. Change plan (billing/checkout/create), or ask the operator.",
  },
  'auth.signature_invalid': {
    status: 403,
    title: 'The signature is invalid',
    meaning:
      'A signed artifact URL was altered or is used for another method than it was signed for, or a Stripe event was not signed with the endpoint secret within the tolerance (300 s). Request a fresh URL and use it unchanged; Stripe resends events on its own.',
  },
  'auth.url_expired': {
    status: 403,
    title: 'The URL has expired',
    meaning: 'A signed artifact URL is past its expiry (`details.expiredAt`). Request a new one.',
  },
  'resource.not_found': {
    status: 404,
    title: 'Not found',
    meaning:
      'The route or the resource does not exist, or belongs to a workspace the caller cannot see (which is answered the same way). Check the ID and the workspace you act in.',
  },
  'job.invalid_state': {
    status: 409,
    title: 'The job is not in a state that allows this',
    meaning:
      'The job has moved on (finished, cancelled, or not started yet) so this change no longer applies. Read the job again and decide from its current state.',
  },
  'job.not_assigned': {
    status: 409,
    title: 'The job is not assigned to this lease',
    meaning:
      'An agent reported on a job its lease no longer holds, for instance after it was presumed lost and the job was reassigned. Stop working on that job and poll for new work.',
  },
  'resource.conflict': {
    status: 409,
    title: 'Conflict',
    meaning:
      'The change collides with existing state: a name already taken, a limit on the number of items, a member already present. Change the request; retrying as is fails again.',
  },
  'request.too_large': {
    status: 413,
    title: 'The request is too large',
    meaning:
      'The body is over the limit (1 MiB for JSON, the artifact limit for uploads; `details.maxBytes` when known). Send less.',
  },
  'idempotency.mismatch': {
    status: 422,
    title: 'The Idempotency-Key was used for another request',
    meaning:
      'A request with this Idempotency-Key and a different body was made in the last 24 hours. A key stands for one request: use a new key for a new request, or send the first body again to get its answer.',
  },
  'rate_limit.exceeded': {
    status: 429,
    title: 'Too many requests',
    meaning:
      'A rate or concurrency budget is used up (per credential, per workspace plan, or per address). Wait the Retry-After seconds, then retry.',
  },
  'quota.exceeded': {
    status: 429,
    title: 'A quota is exhausted',
    meaning:
      'A quota of the key is reached: jobs per hour or unfinished jobs at once (`details.quota`, `details.limit`). Retry after Retry-After, or once running jobs finish.',
  },
  'resource.limit_reached': {
    status: 402,
    title: 'The credit does not cover this job',
    meaning:
      "A managed job on a billed plan is refused when the period's spend, plus what queued and running managed jobs may still cost, plus this job's worst case (its timeoutSeconds × resources at the plan's prices, for each attempt it may make) would pass the credit: the hard cap, or on a prepaid plan the period's spend plus the prepaid credit left (usage draws the credit as it is metered). `details` gives spentUsd, reservedUsd, requiredUsd and creditUsd (that bound). Raise the cap or the credit, wait for jobs to end, or run the job on your own agents (pool self).",
  },
  'dependency.unavailable': {
    status: 503,
    title: 'A dependency is unavailable',
    meaning:
      'The database or the workflow service did not answer in time, or this instance is busy. Retry after Retry-After. For a submit, the detail says whether the job was kept; when in doubt, list your jobs before submitting again.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    meaning: 'Something failed on our side; it is logged. Retry later, and report it if it persists.',
  },
};

export class AppError extends Error {
  readonly status: number;
  /** A refusal already in the audit log (see http/audit-refusals.ts), not to be recorded twice. */
  audited = false;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Seconds, sent as Retry-After. */
    readonly retryAfter?: number,
    /** What a dependency said: logged by the surface, never rendered. */
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'AppError';
    this.status = ERROR_CODES[code].status;
  }
}

export const notFound = (what: string) => new AppError('resource.not_found', `${what} not found`);
export const invalidState = (message: string, details?: Record<string, unknown>) =>
  new AppError('job.invalid_state', message, details);
export const notAssigned = (message = 'This lease no longer holds the job') =>
  new AppError('job.not_assigned', message);

/** A method the path does not take: 405 with `Allow` on both surfaces (code request.invalid). */
export class MethodNotAllowed extends AppError {
  override readonly status = 405;
  constructor(
    method: string,
    path: string,
    readonly allow: string[],
  ) {
    super('request.invalid', `${method} is not allowed on ${path}`);
  }
}
