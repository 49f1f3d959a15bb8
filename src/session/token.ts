/**
 * Signed session ids: `<128-bit random>.<revision index>.<mac>`.
 *
 * The id carries the negotiated revision, signed, so an isolate can shape
 * every response without asking the session's Durable Object, and rejects
 * forged or garbage ids (404) without a round trip. The Durable Object
 * stays the source of truth for whether the session is still alive.
 * Only visible ASCII (base64url and dots), as the spec requires.
 */
import { randomToken } from '../lib/base64url.js';
import { mac, safeEqual } from '../lib/hmac.js';
import { PerSecret } from '../lib/memo.js';
import { versionAt, versionIndex, type LegacyVersion } from '../lib/versions.js';

const PURPOSE = 'session/v1';
const SHAPE = /^([A-Za-z0-9_-]{22})\.(\d)\.([A-Za-z0-9_-]{22})$/;
const verified = new PerSecret<LegacyVersion>(50_000);

export async function mintSessionId(secret: string, version: LegacyVersion): Promise<string> {
  const body = `${randomToken(16)}.${versionIndex(version)}`;
  const id = `${body}.${await mac(secret, PURPOSE, body)}`;
  verified.for(secret).set(id, version);
  return id;
}

/** The revision of an id this isolate has already verified; undefined when it must be checked (readSessionId). */
export function verifiedSessionId(secret: string, id: string): LegacyVersion | undefined {
  return verified.for(secret).get(id);
}

/** The revision a genuine id was minted for, or null for anything we did not sign. */
export async function readSessionId(secret: string, id: string): Promise<LegacyVersion | null> {
  const hit = verifiedSessionId(secret, id);
  if (hit) return hit;
  const m = SHAPE.exec(id);
  if (!m) return null;
  const version = versionAt(Number(m[2]));
  if (!version) return null;
  if (!safeEqual(await mac(secret, PURPOSE, `${m[1]}.${m[2]}`), m[3]!)) return null;
  verified.for(secret).set(id, version);
  return version;
}
