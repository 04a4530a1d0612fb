import { describe, expect, test } from 'vitest';
import { parseTrustProxy, proxyTrust } from '../../server/proxy-trust.js';

describe('parseTrustProxy (RULES_TRUST_PROXY)', () => {
  test.each([
    [undefined, false],
    ['', false],
    ['0', false],
    ['false', false],
    ['no', false],
    ['1', 1],
    ['true', 1],
    ['yes', 1],
    ['2', 2],
    ['10.0.0.1', ['10.0.0.1']],
    [' 10.0.0.0/8 , loopback,2001:db8::/32 ', ['10.0.0.0/8', 'loopback', '2001:db8::/32']],
  ])('%j is %j', (raw, trust) => {
    expect(parseTrustProxy(raw)).toEqual(trust);
  });

  test.each(['10.0.0.0/33', 'proxy.example.com', '10.0.0.1/8/2', '17', '::1/129', '10.0.0.0/x'])('%j is refused with the entry named', (raw) => {
    const parsed = parseTrustProxy(raw);
    expect(parsed).toEqual({ error: expect.stringContaining('RULES_TRUST_PROXY') });
  });
});

describe('proxyTrust', () => {
  test('nothing trusted', () => {
    expect(proxyTrust(false)('127.0.0.1', 0)).toBe(false);
  });

  test('a hop count trusts that many positions from the right, whatever their address', () => {
    const trust = proxyTrust(2);
    expect([0, 1, 2].map((hop) => trust('203.0.113.1', hop))).toEqual([true, true, false]);
  });

  test('a list trusts its addresses and ranges, named ranges included, IPv4 clients of dual-stack sockets too', () => {
    const trust = proxyTrust(['10.0.0.0/8', '192.0.2.7', 'loopback', '2001:db8::/32']);
    const trusted = (address: string) => trust(address, 0);
    expect(trusted('10.200.3.4')).toBe(true);
    expect(trusted('::ffff:10.1.1.1')).toBe(true);
    expect(trusted('192.0.2.7')).toBe(true);
    expect(trusted('192.0.2.8')).toBe(false);
    expect(trusted('127.0.0.1')).toBe(true);
    expect(trusted('::1')).toBe(true);
    expect(trusted('2001:db8::5')).toBe(true);
    expect(trusted('2001:db9::5')).toBe(false);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted('not-an-address')).toBe(false);
  });
});
