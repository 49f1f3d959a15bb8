/**
 * Signed session ids: `<128-bit random>.<revision index>.<mac>`.
 *
 * The id carries the negotiated revision, signed, so an isolate can shape
 * every response without asking the session's Durable Object, and rejects
 * forged or garbage ids (404) without a round trip. The Durable Object
 * stays the source of truth for whether the session is still alive.
 * Only visible ASCII (base64url and dots), as the spec requires.
 *
 * The MAC also covers the id of the principal that opened the session
 * (lib/caller.ts), which the id does not carry: presented by anyone else it
 * does not verify, and is an unknown session like a forged one, with no
 * round trip. The anonymous principal's MAC is the body's alone, as before.
 */
import { randomToken } from '../lib/base64url.js';
import { ANONYMOUS_ID } from '../lib/caller.js';
import { mac, safeEqual } from '../lib/hmac.js';
import { PerSecret } from '../lib/memo.js';
import { versionAt, versionIndex, type LegacyVersion } from '../lib/versions.js';

const PURPOSE = 'session/v1';
const SHAPE = /^([A-Za-z0-9_-]{22})\.(\d)\.([A-Za-z0-9_-]{22})$/;
/** Ids this isolate verified, with the principal each was verified for. */
const verified = new PerSecret<{ version: LegacyVersion; principal: string }>(50_000);

const signed = (body: string, principal: string) => (principal === ANONYMOUS_ID ? body : `${body}|${principal}`);

export async function mintSessionId(
  secret: string,
  version: LegacyVersion,
  principal: string = ANONYMOUS_ID,
): Promise<string> {
  const body = `${randomToken(16)}.${versionIndex(version)}`;
  const id = `${body}.${await mac(secret, PURPOSE, signed(body, principal))}`;
  verified.for(secret).set(id, { version, principal });
  return id;
}

/** The revision of an id this isolate has already verified for this principal; undefined when it must be checked (readSessionId). */
export function verifiedSessionId(
  secret: string,
  id: string,
  principal: string = ANONYMOUS_ID,
): LegacyVersion | undefined {
  const hit = verified.for(secret).get(id);
  return hit?.principal === principal ? hit.version : undefined;
}

/** The revision a genuine id was minted for this principal, or null for anything we did not sign for it. */
export async function readSessionId(
  secret: string,
  id: string,
  principal: string = ANONYMOUS_ID,
): Promise<LegacyVersion | null> {
  const hit = verifiedSessionId(secret, id, principal);
  if (hit) return hit;
  const m = SHAPE.exec(id);
  if (!m) return null;
  const version = versionAt(Number(m[2]));
  if (!version) return null;
  if (!safeEqual(await mac(secret, PURPOSE, signed(`${m[1]}.${m[2]}`, principal)), m[3]!)) return null;
  verified.for(secret).set(id, { version, principal });
  return version;
}
