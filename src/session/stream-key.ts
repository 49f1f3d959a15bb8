/**
 * Stream keys: the first half of a legacy event id (`<key>.<generation>`).
 *
 * A key is a random nonce and a MAC of the session id with it, so a Worker can tell, with no
 * storage and no round trip, that a Last-Event-ID names a stream of this session: nothing is
 * written when a stream opens, and nothing per delivery. A new stream gets a new key, so ids
 * stay unique within the session.
 */
import { randomToken } from '../lib/base64url.js';
import { mac, safeEqual } from '../lib/hmac.js';

const PURPOSE = 'stream/v1';
const SHAPE = /^([A-Za-z0-9_-]{6})([A-Za-z0-9_-]{10})$/;

const sign = async (secret: string, sessionId: string, nonce: string) =>
  (await mac(secret, PURPOSE, `${sessionId}.${nonce}`)).slice(0, 10);

export async function newStreamKey(secret: string, sessionId: string): Promise<string> {
  const nonce = randomToken(4).slice(0, 6);
  return nonce + (await sign(secret, sessionId, nonce));
}

/** Whether `key` is one this deployment made for this session's streams. */
export async function isStreamKey(secret: string, sessionId: string, key: string): Promise<boolean> {
  const m = SHAPE.exec(key);
  return m !== null && safeEqual(await sign(secret, sessionId, m[1]!), m[2]!);
}
