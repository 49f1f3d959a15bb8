/**
 * HMAC-SHA-256 signing for session ids and list cursors.
 *
 * Keys are derived per purpose from one secret so a cursor can never be
 * replayed as a session id. Imported keys and verified strings are memoised
 * per isolate: importKey and sign are async round trips into the runtime's
 * crypto, and the same session id arrives on every request of a session.
 */
import { encodeBase64Url } from './base64url.js';

const enc = new TextEncoder();
const keys = new Map<string, Promise<CryptoKey>>();

function keyFor(secret: string, purpose: string): Promise<CryptoKey> {
  const id = `${purpose}\u0000${secret}`;
  let k = keys.get(id);
  if (!k) {
    k = crypto.subtle.importKey('raw', enc.encode(id), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    keys.set(id, k);
  }
  return k;
}

/** A truncated (128-bit) base64url MAC of `data`. */
export async function mac(secret: string, purpose: string, data: string): Promise<string> {
  const key = await keyFor(secret, purpose);
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(data)));
  return encodeBase64Url(sig.subarray(0, 16));
}

/**
 * Constant-time string comparison for MACs of a fixed, public length (the
 * early return on a length mismatch reveals nothing there). Secrets of any
 * length, such as the admin token, go through tokenEqual instead.
 */
export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const sha256 = async (s: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(s)));

/**
 * Compares a presented secret with the expected one without leaking either
 * its length or the position of the first difference: both are hashed to
 * equal-length digests, compared with the runtime's timingSafeEqual.
 */
export async function tokenEqual(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}
