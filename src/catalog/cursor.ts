/**
 * Opaque list cursors: `<list>.<offset>.<mac>`, base64url-wrapped.
 *
 * Signed so a client cannot forge offsets, and bound to the list they page
 * through: `<list>` names which items the view listed, in which order
 * (View.listId), so a cursor from before a change of that list is rejected
 * (-32602) rather than silently skipping or repeating an item. A new catalog
 * generation that leaves the list as it was (an upstream marked stale or
 * well again, new descriptions, new cache hints, another list's change), or
 * an isolate a generation behind or ahead of the one that minted it, keeps
 * the cursor good: nothing a client was not told of breaks its paging. The
 * MAC also covers the view key (catalog/views.ts), which the cursor does not
 * carry: a cursor from another view is simply invalid. Cursors this isolate
 * minted are remembered, so walking pages costs no HMAC verification.
 */
import { decodeBase64Url, encodeBase64Url } from '../lib/base64url.js';
import { mac, safeEqual } from '../lib/hmac.js';
import { PerSecret } from '../lib/memo.js';
import { LookupError } from './errors.js';

const PURPOSE = 'cursor/v2';
type Position = { list: string; offset: number; view: string };
const minted = new PerSecret<Position>(10_000);

/** What the MAC covers: the body, and the view unless it is everyone's (''): those are signed over the body alone. */
const signed = (body: string, view: string) => (view === '' ? body : `${body}|${view}`);

/** A list's identity as a cursor carries it: lower-case base36, as View.listId makes it. */
const LIST = /^[0-9a-z]{1,24}$/;

export async function mintCursor(secret: string, list: string, offset: number, view = ''): Promise<string> {
  if (!LIST.test(list)) throw new Error(`not a list id: ${list}`);
  const body = `${list}.${offset}`;
  const tag = await mac(secret, PURPOSE, signed(body, view));
  const cursor = encodeBase64Url(new TextEncoder().encode(`${body}.${tag}`));
  minted.for(secret).set(cursor, { list, offset, view });
  return cursor;
}

/** Returns the offset the cursor points at in the list `list` of `view`, or throws LookupError('invalid_cursor'). */
export async function readCursor(secret: string, cursor: unknown, list: string, view = ''): Promise<number> {
  const known = typeof cursor === 'string' ? minted.for(secret).get(cursor) : undefined;
  const parsed = known ? (known.view === view ? known : null) : await verify(secret, cursor, view);
  if (!parsed) throw new LookupError('invalid_cursor', 'Invalid cursor');
  if (parsed.list !== list)
    throw new LookupError('invalid_cursor', 'The list changed since this cursor was made; list again from the start');
  return parsed.offset;
}

/** What a minted cursor looks like (base64url, at most 200 characters): anything else is no cursor of ours. */
export const cursorShaped = (cursor: unknown): cursor is string =>
  typeof cursor === 'string' && /^[A-Za-z0-9_-]{1,200}$/.test(cursor);

async function verify(secret: string, cursor: unknown, view: string): Promise<Position | null> {
  if (!cursorShaped(cursor)) return null;
  const bytes = decodeBase64Url(cursor);
  // Only the spelling we mint: another (other unused bits in the last character) would be another page key.
  if (!bytes || encodeBase64Url(bytes) !== cursor) return null;
  const m = /^([0-9a-z]{1,24})\.(\d{1,9})\.([A-Za-z0-9_-]{22})$/.exec(new TextDecoder().decode(bytes));
  if (!m) return null;
  const expected = await mac(secret, PURPOSE, signed(`${m[1]}.${m[2]}`, view));
  if (!safeEqual(expected, m[3]!)) return null;
  return { list: m[1]!, offset: Number(m[2]), view };
}
