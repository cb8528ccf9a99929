import http from 'node:http';
import https from 'node:https';
import { type LookupFunction, isIP } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';
import {
  METADATA_ADDRESSES,
  type Resolver,
  type TargetPolicy,
  TargetRefusedError,
  hostOf,
  parseTargetUrl,
  refusalOf,
  resolveTarget,
} from './target-guard';

// One delivery attempt: a POST that never follows a redirect, connects only to an address that
// was checked in that very lookup (no DNS rebinding), and never waits or buffers past its limits.

export interface SendResult {
  status: number | null;
  body: string;
  error: string | null;
  durationMs: number;
  ok: boolean;
}

export interface PostWebhookOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  bodyLimitBytes: number;
  policy: TargetPolicy;
  resolve?: Resolver;
}

const DEFAULT_HEADERS: Record<string, string> = {
  'Content-Type': 'application/json',
  'User-Agent': 'compute-webhooks/1',
};

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset (ECONNRESET)',
  EHOSTUNREACH: 'host unreachable (EHOSTUNREACH)',
  ENETUNREACH: 'network unreachable (ENETUNREACH)',
  ETIMEDOUT: 'connect timed out (ETIMEDOUT)',
  EPIPE: 'connection closed while sending (EPIPE)',
};

/** request-filtering-agent's reasons, as refusalOf would say them. */
const FILTER_REASONS: Record<string, string> = {
  'meta IP address': 'an unspecified address',
  'private IP address': 'a non-public address',
  'defined in denyIPAddressList': 'a cloud metadata address',
};

function describe(err: unknown): string {
  if (err instanceof TargetRefusedError) return `refused target: ${err.message}`;
  // Node's happy-eyeballs connect reports every address it tried.
  if (err instanceof AggregateError && err.errors.length) return [...new Set(err.errors.map(describe))].join('; ');
  const e = err as NodeJS.ErrnoException;
  if (e.code && NETWORK_ERRORS[e.code]) return NETWORK_ERRORS[e.code];
  // request-filtering-agent's own refusal (a second line of defence behind refusalOf), retold
  // without the address it names, as resolveTarget's refusals are.
  const filtered =
    /host:(.*)\) is not allowed\. Because,? It (?:is )?(meta IP address|private IP address|defined in denyIPAddressList)/.exec(
      e.message ?? '',
    );
  if (filtered) return `refused target: ${filtered[1]} resolves to ${FILTER_REASONS[filtered[2]]}`;
  if (/is not allowed/.test(e.message ?? '')) return 'refused target: it resolves to a refused address';
  return e.code && !e.message?.includes(e.code) ? `${e.message} (${e.code})` : (e.message ?? String(err));
}

function headersOf(given: Record<string, string>, body: string): Record<string, string> {
  const names = new Set(Object.keys(given).map((k) => k.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(DEFAULT_HEADERS)) if (!names.has(k.toLowerCase())) headers[k] = v;
  for (const [k, v] of Object.entries(given)) if (k.toLowerCase() !== 'content-length') headers[k] = v;
  headers['Content-Length'] = String(Buffer.byteLength(body));
  return headers;
}

/** One HTTP POST of a webhook. Never throws: refusals and network failures come back as `error`. */
export async function postWebhook(o: PostWebhookOptions): Promise<SendResult> {
  const started = performance.now();
  const result = (status: number | null, body: string, error: string | null): SendResult => ({
    status,
    body,
    error,
    durationMs: Math.round(performance.now() - started),
    ok: error === null && status !== null && status >= 200 && status < 300,
  });

  let target: URL;
  try {
    target = parseTargetUrl(o.url);
    // connect() skips the lookup for an IP literal, so it is checked here.
    const host = hostOf(target);
    const why = isIP(host) ? refusalOf(host, o.policy) : undefined;
    if (why) throw new TargetRefusedError(`${host} is ${why}`);
  } catch (err) {
    return result(null, '', describe(err));
  }

  // The connection goes to exactly the addresses checked here.
  const lookup: LookupFunction = (hostname, options, callback) => {
    resolveTarget(hostname, o.policy, o.resolve).then(
      (addresses) =>
        options.all ? callback(null, addresses) : callback(null, addresses[0].address, addresses[0].family),
      (err: Error) => callback(err, '', 0),
    );
  };
  const agentOptions = {
    keepAlive: false,
    allowPrivateIPAddress: o.policy.allowPrivate,
    allowMetaIPAddress: o.policy.allowPrivate,
    denyIPAddressList: [...METADATA_ADDRESSES],
  };
  const secure = target.protocol === 'https:';
  const agent = secure ? new RequestFilteringHttpsAgent(agentOptions) : new RequestFilteringHttpAgent(agentOptions);

  return new Promise<SendResult>((settle) => {
    let status: number | null = null;
    let body = '';
    let kept = 0;
    const decoder = new StringDecoder('utf8');
    let req: http.ClientRequest | undefined;
    let done = false;
    const finish = (error: string | null) => {
      if (done) return;
      done = true;
      clearTimeout(deadline);
      req?.destroy();
      agent.destroy();
      settle(result(status, body, error));
    };
    const deadline = setTimeout(() => finish(`timed out after ${o.timeoutMs} ms`), o.timeoutMs);

    try {
      req = (secure ? https.request : http.request)(
        target,
        { method: 'POST', headers: headersOf(o.headers, o.body), agent, lookup },
        (res) => {
          status = res.statusCode ?? null;
          if (status !== null && status >= 300 && status < 400) {
            finish(`redirect (${status} to ${res.headers.location ?? 'no location'}) not followed`);
            return;
          }
          res.on('data', (chunk: Buffer) => {
            const room = o.bodyLimitBytes - kept;
            // Past the limit the rest is not read at all: the socket goes (a partial character is dropped).
            if (chunk.length > room) {
              body += decoder.write(chunk.subarray(0, room));
              kept += room;
              finish(null);
              return;
            }
            body += decoder.write(chunk);
            kept += chunk.length;
          });
          res.on('end', () => {
            body += decoder.end();
            finish(null);
          });
          res.on('error', (err) => finish(describe(err)));
          res.on('close', () => finish(res.complete ? null : 'connection closed before the response ended'));
        },
      );
      req.on('error', (err) => finish(describe(err)));
      req.end(o.body);
    } catch (err) {
      finish(describe(err));
    }
  });
}
