import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// The SSRF guard for webhook targets (CONTRACT §7): a URL is checked at registration, and every
// address a delivery connects to is checked again (send.ts), so DNS cannot rebind in between.

export interface TargetPolicy {
  /** Private, loopback, link-local and other non-public targets are allowed (dev); metadata never. */
  allowPrivate: boolean;
}

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export class TargetRefusedError extends Error {
  override name = 'TargetRefusedError';
}

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Cloud instance-metadata endpoints, refused whatever the policy (the agent's deny list too). */
export const METADATA_ADDRESSES = ['169.254.169.254', 'fd00:ec2::254'] as const;
const METADATA = METADATA_ADDRESSES.map((a) => ipaddr.parse(a).toNormalizedString());

const REASONS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  uniqueLocal: 'a unique-local (private) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  reserved: 'a reserved address',
};

// IPv6 forms that carry an IPv4 address the traffic may end up at.
const WRAPPERS: Record<string, string> = {
  ipv4Mapped: 'an IPv4-mapped form',
  ipv4Compatible: 'an IPv4-compatible form',
  rfc6145: 'an IPv4-translated form',
  rfc6052: 'a NAT64 form',
  '6to4': 'a 6to4 form',
  teredo: 'a Teredo form',
};

const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);

/** The IPv4 addresses an IPv6 address of `range` wraps (Teredo: its server and its client). */
function embeddedIPv4(ip: ipaddr.IPv6, range: string): ipaddr.IPv4[] {
  const p = ip.parts;
  switch (range) {
    case 'ipv4Mapped':
    case 'ipv4Compatible':
    case 'rfc6145':
    case 'rfc6052':
      return [v4(p[6], p[7])];
    case '6to4':
      return [v4(p[1], p[2])];
    case 'teredo':
      return [v4(p[2], p[3]), v4(~p[6] & 0xffff, ~p[7] & 0xffff)];
    default:
      return [];
  }
}

function rangeOf(ip: ipaddr.IPv4 | ipaddr.IPv6): string {
  const range = ip.range();
  // ipaddr.js calls ::/96 (deprecated IPv4-compatible, e.g. ::7f00:1) unicast.
  if (
    ip.kind() === 'ipv6' &&
    range === 'unicast' &&
    ip
      .toByteArray()
      .slice(0, 12)
      .every((b) => b === 0)
  )
    return 'ipv4Compatible';
  return range;
}

/**
 * Why an address may not be a target, or undefined when it may. `named: false` leaves out the
 * IPv4 address a wrapper form carries: for an address a hostname resolved to, the reason must not
 * tell a workspace member what internal DNS answered.
 */
export function refusalOf(address: string, policy: TargetPolicy, { named = true } = {}): string | undefined {
  const bare = address.replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 0) return 'not an IP address';
  // ipaddr.js reads "::1.2.3.4" as IPv4-mapped; the WHATWG URL parser spells it as the kernel sees it.
  const ip =
    family === 4 ? ipaddr.IPv4.parse(bare) : ipaddr.IPv6.parse(new URL(`http://[${bare}]`).hostname.slice(1, -1));
  const range = rangeOf(ip);
  const inner = ip.kind() === 'ipv6' ? embeddedIPv4(ip as ipaddr.IPv6, range) : [];
  if ([ip, ...inner].some((a) => METADATA.includes(a.toNormalizedString()))) return 'a cloud metadata address';
  if (policy.allowPrivate || range === 'unicast') return undefined;
  for (const a of inner) {
    const why = refusalOf(a.toString(), policy);
    if (why) return named ? `${WRAPPERS[range]} of ${a.toString()}, ${why}` : `${WRAPPERS[range]} of ${why}`;
  }
  if (inner.length)
    return named ? `${WRAPPERS[range]} of ${inner.join(' / ')}` : `${WRAPPERS[range]} of a public IPv4 address`;
  return REASONS[range] ?? `a special-purpose address (${range})`;
}

/** The URL's host as a resolver or connect() takes it (an IPv6 literal without brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** The URL of a target, refused unless http(s) with a host and no credentials. */
export function parseTargetUrl(url: string): URL {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new TargetRefusedError('not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:')
    throw new TargetRefusedError(`the scheme ${target.protocol} is not allowed (http or https only)`);
  if (target.username || target.password) throw new TargetRefusedError('credentials in the URL are not allowed');
  if (!hostOf(target)) throw new TargetRefusedError('the URL has no host');
  return target;
}

/** Every address `host` resolves to, refused if any of them is (an IP literal is checked as is). */
export async function resolveTarget(
  host: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const family = isIP(host);
  if (family !== 0) {
    const why = refusalOf(host, policy);
    if (why) throw new TargetRefusedError(`${host} is ${why}`);
    return [{ address: host, family: family === 6 ? 6 : 4 }];
  }
  let addresses: Awaited<ReturnType<Resolver>>;
  try {
    addresses = await resolve(host);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new TargetRefusedError(`${host} does not resolve${code ? ` (${code})` : ''}`);
  }
  if (addresses.length === 0) throw new TargetRefusedError(`${host} does not resolve`);
  for (const { address } of addresses) {
    // The caller gave the name, not the address: the refusal says what kind it is, never which.
    const why = refusalOf(address, policy, { named: false });
    if (why) throw new TargetRefusedError(`${host} resolves to ${why}`);
  }
  return addresses;
}

/** Checks a URL at registration; throws TargetRefusedError saying why (a resolved address is not named). */
export async function checkTarget(
  url: string,
  policy: TargetPolicy,
  resolve: Resolver = systemResolver,
): Promise<void> {
  await resolveTarget(hostOf(parseTargetUrl(url)), policy, resolve);
}
