import { describe, expect, it } from 'vitest';
import { mintCursor, readCursor } from '../../src/catalog/cursor.js';
import { decodeBase64Url, encodeBase64Url } from '../../src/lib/base64url.js';
import { mintSessionId, readSessionId, readSessionToken } from '../../src/session/token.js';

describe('session ids', () => {
  it('carry the negotiated version and verify only with the right secret', async () => {
    const id = await mintSessionId('s1', '2025-06-18');
    expect(id).toMatch(/^[\x21-\x7e]{50,90}$/);
    expect(await readSessionId('s1', id)).toBe('2025-06-18');
    const other = await mintSessionId('s2', '2025-03-26');
    expect(await readSessionId('s1', other)).toBeNull();
    // Same random part and MAC, different version digit: the MAC no longer matches.
    const parts = id.split('.');
    expect(await readSessionId('s1', [parts[0], '2', ...parts.slice(2)].join('.'))).toBeNull();
    expect(await readSessionId('s1', 'x'.repeat(200))).toBeNull();
  });
  it('carry the mint time and the client label, signed, and a long label is cut to keep the id small', async () => {
    const now = Date.now() - 5_000;
    const id = await mintSessionId('s1', '2025-11-25', undefined, { client: { name: 'ide', version: '1.2' }, now });
    expect(await readSessionToken('s1', id)).toMatchObject({
      version: '2025-11-25',
      unusedUntil: now + 3_600_000,
      client: { name: 'ide', version: '1.2' },
    });
    // A fresh isolate's view: the same answer from the id alone, with its signature checked.
    const parts = id.split('.');
    const forgedTime = [...parts.slice(0, 2), (now + 60_000).toString(36), ...parts.slice(3)].join('.');
    const forgedLabel = [...parts.slice(0, 3), 'aWRl', parts[4]].join('.');
    for (const f of [forgedTime, forgedLabel]) expect(await readSessionToken('s1', f)).toBeNull();
    const long = await mintSessionId('s1', '2025-11-25', undefined, { client: { name: 'é'.repeat(64), version: 'v' } });
    expect(long).toMatch(/^[\x21-\x7e]{60,200}$/);
    expect((await readSessionToken('s1', long))!.client!.name.length).toBeLessThan(64);
    const none = await mintSessionId('s1', '2025-11-25');
    expect((await readSessionToken('s1', none))!.client).toBeUndefined();
  });
});

describe('cursors', () => {
  it('round-trip, are opaque, and reject other lists and forgeries', async () => {
    const c = await mintCursor('k', 'l7', 50);
    expect(c).not.toContain('50');
    expect(await readCursor('k', c, 'l7')).toBe(50);
    await expect(readCursor('k', c, 'l8')).rejects.toMatchObject({ reason: 'invalid_cursor' });
    const forged = encodeBase64Url(new TextEncoder().encode('l7.100.AAAAAAAAAAAAAAAAAAAAAA'));
    await expect(readCursor('k', forged, 'l7')).rejects.toMatchObject({ reason: 'invalid_cursor' });
    await expect(readCursor('other-secret', await mintCursor('k2', 'l7', 1), 'l7')).rejects.toMatchObject({
      reason: 'invalid_cursor',
    });
  });

  it('only as minted: a spelling with other unused bits in its last character decodes alike and is refused', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const c = await mintCursor('k', 'a795723738111', 5);
    const bytes = decodeBase64Url(c)!;
    const variants = [...alphabet]
      .map((ch) => c.slice(0, -1) + ch)
      .filter((v) => v !== c && decodeBase64Url(v)?.join() === bytes.join());
    expect(variants.length).toBeGreaterThan(0);
    expect(await readCursor('k', c, 'a795723738111')).toBe(5);
    for (const v of variants)
      await expect(readCursor('k', v, 'a795723738111')).rejects.toMatchObject({ reason: 'invalid_cursor' });
  });
});
