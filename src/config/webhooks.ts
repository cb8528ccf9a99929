/** How webhooks are delivered (CONTRACT §7). */
export interface WebhookSettings {
  /** Loopback and private targets allowed (never metadata addresses). */
  allowPrivateTargets: boolean;
  /** A 2xx within this is success. */
  timeoutMs: number;
  /** Delay before the first retry; doubles per attempt up to `maxRetryDelayMs`, with jitter. */
  firstRetryMs: number;
  maxRetryDelayMs: number;
  /** Failed attempts are retried until this long after the first; then the delivery is `failed`. */
  retryWindowMs: number;
  /** After a rotation the previous secret still signs for this long. */
  secretOverlapMs: number;
  /** Of a receiver's answer, this much is kept in the delivery log. */
  responseBodyBytes: number;
  /** How often the relay looks for new events (the outbox) to hand to their deliveries. */
  relayIntervalMs: number;
  /** Events and delivery attempts older than this are removed (after the retry window, always). */
  retentionDays: number;
  /** Keys sealing endpoint secrets at rest, the first sealing; unset outside production, one is kept in the data folder. */
  secretKeys?: Buffer[];
}
