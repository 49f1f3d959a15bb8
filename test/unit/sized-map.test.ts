/**
 * SizedMap (lib/memo.ts), the memo of large values (catalog pages, skill files): bounded in entries
 * and in total size, oldest out first, and a value over the whole budget never kept.
 */
import { describe, expect, it } from 'vitest';
import { SizedMap } from '../../src/lib/memo.js';

describe('SizedMap', () => {
  it('drops the oldest entries until a new value fits the size budget', () => {
    const m = new SizedMap<string, string>(10, 10, (v) => v.length);
    m.set('a', 'xxxx');
    m.set('b', 'yyyy');
    expect(m.stats).toEqual({ entries: 2, size: 8 });
    m.set('c', 'zzzz');
    expect([m.has('a'), m.has('b'), m.get('c')]).toEqual([false, true, 'zzzz']);
    expect(m.stats).toEqual({ entries: 2, size: 8 });
  });
  it('drops the oldest when the entry bound is reached, and replacing a key counts its size once', () => {
    const m = new SizedMap<string, string>(2, 100, (v) => v.length);
    m.set('a', 'x');
    m.set('b', 'yy');
    m.set('b', 'yyy');
    expect(m.stats).toEqual({ entries: 2, size: 4 });
    m.set('c', 'z');
    expect([m.has('a'), m.get('b'), m.get('c')]).toEqual([false, 'yyy', 'z']);
    expect(m.stats).toEqual({ entries: 2, size: 4 });
  });
  it('never keeps a value larger than the whole budget, and keeps what it held', () => {
    const m = new SizedMap<string, Uint8Array>(4, 16, (b) => b.byteLength);
    m.set('small', new Uint8Array(8));
    m.set('huge', new Uint8Array(17));
    expect([m.has('small'), m.has('huge')]).toEqual([true, false]);
    expect(m.stats).toEqual({ entries: 1, size: 8 });
  });
});
