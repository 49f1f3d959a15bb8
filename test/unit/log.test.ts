/**
 * lib/log.ts: one JSON line per call, `msg` first, on the console method of
 * its level (tests and Workers Logs read those), and no credential printed.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { log } from '../../src/lib/log.js';

afterEach(() => vi.restoreAllMocks());

function captured(method: 'log' | 'warn' | 'error'): string[] {
  const lines: string[] = [];
  vi.spyOn(console, method).mockImplementation((...a: unknown[]) => void lines.push(a.map(String).join(' ')));
  return lines;
}

describe('log', () => {
  it('writes one JSON line, msg first, on the level’s console method', () => {
    const info = captured('log');
    const warn = captured('warn');
    const error = captured('error');
    log.info('catalog written', { generation: 3, added: ['a'] });
    log.warn('upstream list failed', { upstream: 'huge', error: 'timeout', failures: 2 });
    log.error('SIGNING_SECRET is not set');
    expect(info).toEqual(['{"msg":"catalog written","generation":3,"added":["a"]}']);
    expect(warn).toEqual(['{"msg":"upstream list failed","upstream":"huge","error":"timeout","failures":2}']);
    expect(error).toEqual(['{"msg":"SIGNING_SECRET is not set"}']);
  });

  it('prints fields named for credentials as [redacted]', () => {
    const warn = captured('warn');
    log.warn('rejected', {
      authorization: 'Bearer s3cret',
      adminToken: 's3cret',
      headers: { cookie: 's3cret' },
      status: 401,
    });
    expect(warn).toEqual([
      '{"msg":"rejected","authorization":"[redacted]","adminToken":"[redacted]","headers":"[redacted]","status":401}',
    ]);
    expect(warn[0]).not.toContain('s3cret');
  });

  it('takes JSON values only: a Headers object does not type-check', () => {
    const warn = captured('warn');
    // @ts-expect-error Headers (a class with methods) is not a LogValue.
    log.warn('request', { received: new Headers({ authorization: 'Bearer s3cret' }) });
    // At run time Headers serialises to {}: nothing of it is printed either.
    expect(warn).toEqual(['{"msg":"request","received":{}}']);
  });
});
