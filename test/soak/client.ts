import { setTimeout as sleep } from 'node:timers/promises';

// The soak's HTTP client: every answer it gets is counted by status, so the report can say how
// often the API answered 500 (never allowed) and whether each 503 carried Retry-After.

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** An answer worth trying again: the gateway found no API (503), a request cut mid-way (502). */
const retryable = (status: number) => status === 502 || status === 503 || status === 504 || status === 429;

export class SoakClient {
  readonly statuses = new Map<number, number>();
  readonly errors: string[] = [];
  networkErrors = 0;
  /** 503s and 429s without a Retry-After header. */
  missingRetryAfter = 0;

  constructor(
    readonly baseUrl: string,
    private readonly token: string,
  ) {}

  /** One request; throws on a network error (counted). Surface B under /v0, Surface A under /api. */
  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: {
          Authorization: `Bearer ${this.token}`,
          ...(body !== undefined && { 'Content-Type': 'application/json' }),
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(45_000),
      });
    } catch (err) {
      this.networkErrors++;
      throw err;
    }
    const text = await res.text().catch(() => '');
    this.count(res.status, res.headers, `${method} ${path}`, text);
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }

  /** Counts an answer the soak got by other means (an artifact download). */
  count(status: number, headers: Headers, what: string, text = ''): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status >= 500 && status !== 502 && status !== 503 && status !== 504)
      this.errors.push(`${what} -> ${status} ${text.slice(0, 300)}`);
    if ((status === 503 || status === 429) && !headers.get('retry-after')) {
      this.missingRetryAfter++;
      this.errors.push(`${what} -> ${status} without Retry-After`);
    }
  }

  /**
   * The request until it gets an answer that is not an outage's (502, 503, 504, 429, a network
   * error), honouring Retry-After, for at most `budgetMs`; then the last outage's answer or error.
   */
  async retried(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    budgetMs = 60_000,
  ): Promise<Answer> {
    const deadline = Date.now() + budgetMs;
    for (let attempt = 0; ; attempt++) {
      let wait = Math.min(2000, 200 * 2 ** attempt) * (0.5 + Math.random());
      try {
        const answer = await this.call(method, path, body, headers);
        if (!retryable(answer.status) && !(answer.status === 409 && answer.body?.code === 'resource.conflict'))
          return answer;
        const after = Number(answer.headers.get('retry-after'));
        if (after > 0) wait = after * 1000 * (0.5 + Math.random() / 2);
        if (Date.now() + wait > deadline) return answer;
      } catch (err) {
        if (Date.now() + wait > deadline) throw err;
      }
      await sleep(wait);
    }
  }

  /** How many answers had `status`. */
  seen(status: number): number {
    return this.statuses.get(status) ?? 0;
  }
}
