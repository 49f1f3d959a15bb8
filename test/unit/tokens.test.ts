import { describe, expect, it } from 'vitest';
import { mintCursor, readCursor } from '../../src/catalog/cursor.js';
import { encodeBase64Url } from '../../src/lib/base64url.js';
import { mintSessionId, readSessionId } from '../../src/session/token.js';

describe('session ids', () => {
  it('carry the negotiated version and verify only with the right secret', async () => {
    const id = await mintSessionId('s1', '2025-06-18');
    expect(id).toMatch(/^[\x21-\x7e]{40,80}$/);
    expect(await readSessionId('s1', id)).toBe('2025-06-18');
    const other = await mintSessionId('s2', '2025-03-26');
    expect(await readSessionId('s1', other)).toBeNull();
    // Same random part and MAC, different version digit: the MAC no longer matches.
    const parts = id.split('.');
    expect(await readSessionId('s1', `${parts[0]}.2.${parts[2]}`)).toBeNull();
    expect(await readSessionId('s1', 'x'.repeat(200))).toBeNull();
  });
});

describe('cursors', () => {
  it('round-trip, are opaque, and reject other generations and forgeries', async () => {
    const c = await mintCursor('k', 7, 50);
    expect(c).not.toContain('50');
    expect(await readCursor('k', c, 7)).toBe(50);
    await expect(readCursor('k', c, 8)).rejects.toMatchObject({ reason: 'invalid_cursor' });
    const forged = encodeBase64Url(new TextEncoder().encode('7.100.AAAAAAAAAAAAAAAAAAAAAA'));
    await expect(readCursor('k', forged, 7)).rejects.toMatchObject({ reason: 'invalid_cursor' });
    await expect(readCursor('other-secret', await mintCursor('k2', 7, 1), 7)).rejects.toMatchObject({
      reason: 'invalid_cursor',
    });
  });
});
