/**
 * The small pieces behind the limits: UTF-8 sizes without encoding, the
 * iterative nesting check, prototype-free argument maps, and the admin
 * token comparison over digests.
 */
import { describe, expect, it } from 'vitest';
import { readArguments, UNLIMITED, utf8Length } from '../../src/catalog/arguments.js';
import { tokenEqual } from '../../src/lib/hmac.js';
import { nestedDeeperThan } from '../../src/lib/json.js';

describe('utf8Length', () => {
  it('matches TextEncoder on ASCII, 2-, 3- and 4-byte characters and lone surrogates', () => {
    for (const s of ['', 'abc', 'é', '€', '😀', 'a😀é€', '\ud800', 'x\udc00y', '\ud83d', '名前'.repeat(100)]) {
      expect(utf8Length(s), JSON.stringify(s)).toBe(new TextEncoder().encode(s).length);
    }
  });
});

describe('nestedDeeperThan', () => {
  const nest = (d: number) => JSON.parse('['.repeat(d) + ']'.repeat(d));
  it('counts objects and arrays, without recursion (100,000 levels)', () => {
    expect(nestedDeeperThan(nest(64), 64)).toBe(false);
    expect(nestedDeeperThan(nest(65), 64)).toBe(true);
    expect(nestedDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestedDeeperThan('x', 0)).toBe(false);
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    expect(nestedDeeperThan(deep, 64)).toBe(true);
  });
});

describe('readArguments', () => {
  it('copies own properties into a map without a prototype', () => {
    const args = readArguments(JSON.parse('{"__proto__":"p","who":"w"}'), UNLIMITED);
    expect(Object.getPrototypeOf(args)).toBeNull();
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(args.__proto__).toBe('p');
    expect(Object.hasOwn(args, 'constructor')).toBe(false);
    // eslint-disable-next-line @typescript-eslint/unbound-method -- reading the property is the test
    expect((args as Record<string, unknown>).toString).toBeUndefined();
  });
});

describe('tokenEqual', () => {
  it('is equality, for any lengths', async () => {
    expect(await tokenEqual('secret-token', 'secret-token')).toBe(true);
    for (const given of ['', 'secret-toke', 'secret-tokenx', 'secret-tokem', 'Secret-token', 'x'.repeat(10_000)]) {
      expect(await tokenEqual(given, 'secret-token'), given.slice(0, 20)).toBe(false);
    }
  });
});

describe('clientKey (what a rate limit counts)', () => {
  it('an IPv4 address as it is, an IPv6 address by its /64, however it is written', async () => {
    const { clientKey } = await import('../../src/lib/client-address.js');
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey(undefined)).toBe('unknown');
    const prefix = '2001:db8:0:1::/64';
    for (const ip of [
      '2001:db8:0:1::1',
      '2001:DB8:0:1:ffff:ffff:ffff:ffff',
      '2001:0db8:0000:0001:0:0:0:2',
      '2001:db8::1:0:0:0:3',
    ])
      expect(clientKey(ip), ip).toBe(prefix);
    expect(clientKey('2001:db8:0:2::1')).not.toBe(prefix);
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('::')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    // An IPv4 client seen through IPv6 is that IPv4 client: two of them are two budgets.
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.2')).toBe('192.0.2.2');
    // A dotted tail is two groups; what is not an address is counted as written, never an error.
    expect(clientKey('64:ff9b::192.0.2.1')).toBe('64:ff9b:0:0::/64');
    expect(clientKey('1:2:3:4:5:6:7:8::9')).toBe('1:2:3:4:5:6:7:8::9');
    expect(clientKey('1::2::3')).toBe('1::2::3');
  });
});
