import { BlockList, isIP } from 'node:net';

// Which proxies in front of the daemon are believed (RULES_TRUST_PROXY), with Fastify's
// `trustProxy` semantics: the client is the first address, from the right of the chain
// `x-forwarded-for` hops + socket address, that is not a trusted proxy. Believing the leftmost hop
// (Fastify's `true`) would let any client pick its own address, and with it its own trial-key and
// failed-authentication allowance.

/** No proxy (the socket address is the client), a number of trusted hops, or proxy addresses. */
export type TrustProxy = false | number | string[];

/** proxy-addr's named ranges, which Fastify accepts in a list. */
const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** At most this many hops are trusted (no real chain of proxies is longer). */
export const MAX_TRUSTED_HOPS = 16;

/**
 * RULES_TRUST_PROXY: empty, `0`, `false` or `no` trust nothing; `1`, `true` or `yes` one hop (the
 * load balancer in front); a whole number that many hops; otherwise a comma-separated list of
 * proxy addresses, CIDR ranges and the names loopback, linklocal, uniquelocal. Returns an error
 * message for a value that is none of these.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxy | { error: string } {
  const value = (raw ?? '').trim();
  if (value === '' || /^(0|false|no)$/i.test(value)) return false;
  if (/^(true|yes)$/i.test(value)) return 1;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops <= MAX_TRUSTED_HOPS ? hops : { error: `RULES_TRUST_PROXY trusts at most ${MAX_TRUSTED_HOPS} hops, got ${value}` };
  }
  const entries = value.split(',').map((e) => e.trim()).filter(Boolean);
  for (const entry of entries) {
    if (!(entry in NAMED_RANGES) && !rangeOf(entry)) {
      return { error: `RULES_TRUST_PROXY must be a hop count or a comma-separated list of proxy addresses, CIDR ranges (10.0.0.0/8) and loopback, linklocal or uniquelocal; ${JSON.stringify(entry)} is none of these` };
    }
  }
  return entries;
}

/** An address or CIDR range, split into its parts; undefined when it is neither. */
function rangeOf(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, ...rest] = entry.split('/');
  const version = isIP(address);
  if (!version || rest.length) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether the address at position `hop` of the chain (0: the socket's peer, 1: the last
 * `x-forwarded-for` entry, …) is a trusted proxy: Fastify's `trustProxy` function, and how the
 * connection limits tell a proxy's connections (many clients) from one client's. With a hop count,
 * the first `hops` positions are proxies whatever their address.
 */
export function proxyTrust(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  const list = new BlockList();
  for (const entry of trust.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const range = rangeOf(entry)!;
    list.addSubnet(range.address, range.prefix, range.family);
  }
  return (address) => {
    // an IPv4 client of a dual-stack socket shows as ::ffff:a.b.c.d
    const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (v4) return list.check(v4, 'ipv4');
    const version = isIP(address);
    return version !== 0 && list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
