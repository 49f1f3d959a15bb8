/**
 * Signed session ids: `<128-bit random>.<revision index>.<unused until>.<client label>.<mac>`.
 *
 * The id carries everything a session's requests need, signed: the
 * negotiated revision (to shape every response), when it expires if never
 * used (so a session nobody touched again expires without an object to say so)
 * and the client's label (name/version, for log lines and usage), so
 * `initialize` answers from the id alone and no Durable Object exists until
 * the session has state to keep (sessions.ts). Forged or garbage ids are a
 * 404 without a round trip. Only visible ASCII (base64url and dots), as the
 * spec requires.
 *
 * The MAC also covers the id of the principal that opened the session
 * (lib/caller.ts), which the id does not carry: presented by anyone else it
 * does not verify, and is an unknown session like a forged one, with no
 * round trip.
 */
import { decodeBase64Url, encodeBase64Url, randomToken } from '../lib/base64url.js';
import { ANONYMOUS_ID } from '../lib/caller.js';
import { mac, safeEqual } from '../lib/hmac.js';
import { PerSecret } from '../lib/memo.js';
import type { ClientLabel } from '../lib/record.js';
import { versionAt, versionIndex, type LegacyVersion } from '../lib/versions.js';

/** What a verified id says of its session. */
export interface SessionToken {
  version: LegacyVersion;
  /**
   * Epoch ms, the mint time plus the TTL then: a session whose object never came to be is expired
   * from this moment. Signed, so a later change of the TTL cannot bring an ended session back.
   */
  unusedUntil: number;
  client: ClientLabel | undefined;
}

const PURPOSE = 'session/v2';
const SHAPE = /^([A-Za-z0-9_-]{22})\.(\d)\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]{0,128})\.([A-Za-z0-9_-]{22})$/;
/** A label is at most this many bytes in the id (128 base64url characters): the id stays a small header. */
const MAX_LABEL_BYTES = 96;
/** SESSION_TTL_SECONDS' default, for ids minted without one (tests, tools). */
const DEFAULT_TTL_MS = 3_600_000;
/** Ids this isolate verified, with the principal each was verified for. */
const verified = new PerSecret<SessionToken & { principal: string }>(50_000);
const enc = new TextEncoder();
const dec = new TextDecoder();

const signed = (body: string, principal: string) => (principal === ANONYMOUS_ID ? body : `${body}|${principal}`);

function encodeLabel(client: ClientLabel | undefined): string {
  if (!client) return '';
  const bytes = enc.encode(`${client.name.replace(/\0/g, '')}\0${client.version.replace(/\0/g, '')}`);
  return encodeBase64Url(bytes.subarray(0, MAX_LABEL_BYTES));
}

function decodeLabel(s: string): ClientLabel | undefined {
  if (!s) return undefined;
  const bytes = decodeBase64Url(s);
  if (!bytes) return undefined;
  const [name = '', version = ''] = dec.decode(bytes).split('\0');
  return { name, version };
}

/**
 * A new session's id. `client` is what the id will say of the client: read it back from the
 * result (readSessionToken) rather than from the request, since a long label is cut to fit.
 */
export async function mintSessionId(
  secret: string,
  version: LegacyVersion,
  principal: string = ANONYMOUS_ID,
  opts: { client?: ClientLabel; ttlMs?: number; now?: number } = {},
): Promise<string> {
  const unusedUntil = (opts.now ?? Date.now()) + (opts.ttlMs ?? DEFAULT_TTL_MS);
  const label = encodeLabel(opts.client);
  const body = `${randomToken(16)}.${versionIndex(version)}.${unusedUntil.toString(36)}.${label}`;
  const id = `${body}.${await mac(secret, PURPOSE, signed(body, principal))}`;
  verified.for(secret).set(id, { version, unusedUntil, client: decodeLabel(label), principal });
  return id;
}

/** What an id this isolate has already verified for this principal says; undefined when it must be checked. */
export function verifiedToken(secret: string, id: string, principal: string = ANONYMOUS_ID): SessionToken | undefined {
  const hit = verified.for(secret).get(id);
  return hit?.principal === principal ? hit : undefined;
}

/** What a genuine id minted for this principal says, or null for anything we did not sign for it. */
export async function readSessionToken(
  secret: string,
  id: string,
  principal: string = ANONYMOUS_ID,
): Promise<SessionToken | null> {
  const hit = verifiedToken(secret, id, principal);
  if (hit) return hit;
  const m = SHAPE.exec(id);
  if (!m) return null;
  const version = versionAt(Number(m[2]));
  if (!version) return null;
  const body = `${m[1]}.${m[2]}.${m[3]}.${m[4]}`;
  if (!safeEqual(await mac(secret, PURPOSE, signed(body, principal)), m[5]!)) return null;
  const token = { version, unusedUntil: parseInt(m[3]!, 36), client: decodeLabel(m[4]!) };
  verified.for(secret).set(id, { ...token, principal });
  return token;
}

/** The revision a genuine id was minted with for this principal, or null. */
export async function readSessionId(
  secret: string,
  id: string,
  principal: string = ANONYMOUS_ID,
): Promise<LegacyVersion | null> {
  return (await readSessionToken(secret, id, principal))?.version ?? null;
}
