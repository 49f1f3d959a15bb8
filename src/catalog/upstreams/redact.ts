/**
 * An upstream's error text with the credentials the gateway sent it cut out. An upstream's
 * JSON-RPC error is passed to clients, logged and shown in /status (docs/upstreams.md), and a
 * server that echoes what it was sent ("bad credentials: Bearer ghp_…") would otherwise publish
 * the gateway's own secret for it. Only errors are scrubbed: a result is the upstream's content.
 */
import { withoutSecrets } from '../../lib/clip.js';
import { UpstreamError } from './errors.js';

const REDACTED = '[redacted]';
/**
 * Shorter header words are not taken for secrets (`Bearer`, `gzip`, a tenant id): cutting them
 * would mangle the message for nothing. A credential is longer than this.
 */
export const MIN_SECRET = 8;

/** The user:password of a `Basic` credential, and the password: an upstream may echo either, decoded. */
function basicParts(value: string): string[] {
  const m = /^basic\s+([A-Za-z0-9+/=]+)$/i.exec(value.trim());
  if (!m) return [];
  let decoded: string;
  try {
    decoded = atob(m[1]!);
  } catch {
    return [];
  }
  const password = decoded.slice(decoded.indexOf(':') + 1);
  return decoded.includes(':') && password ? [decoded, password] : [decoded];
}

/** What one client sent its upstream: the configured headers' secrets, and the bearer tokens lately sent. */
export class SentSecrets {
  private readonly tokens = new Set<string>();
  private fromHeaders: string[] | undefined;
  constructor(
    private readonly headers: Record<string, string>,
    /** The `${NAME}` values inside them, whatever their length or place (schema.ts `secrets`). */
    private readonly configured: readonly string[] = [],
  ) {}

  /** Notes a token as it is sent (a few are kept: a refresh replaces one while calls still carry the last). */
  token(t: string | undefined): string | undefined {
    if (t === undefined || this.tokens.has(t)) return t;
    if (this.tokens.size >= 4) this.tokens.delete(this.tokens.values().next().value!);
    this.tokens.add(t);
    return t;
  }

  /**
   * Each configured secret; each whole header value, each of its words and a Basic credential's
   * decoded parts, of MIN_SECRET or more; and the tokens.
   */
  all(): string[] {
    const words = (v: string) => [v, ...v.split(/\s+/), ...basicParts(v)].filter((s) => s.length >= MIN_SECRET);
    this.fromHeaders ??= [...new Set([...this.configured, ...Object.values(this.headers).flatMap(words)])];
    return [...this.fromHeaders, ...this.tokens];
  }
}

function scrub(text: string, secrets: readonly string[]): string {
  const out = withoutSecrets(text, secrets, REDACTED);
  // A message cut to its bound (errors.ts) may end inside a secret: its first characters go too.
  if (out.endsWith('…')) {
    const body = out.slice(0, -1);
    for (const s of secrets)
      for (let k = Math.min(s.length - 1, body.length); k >= 4; k--)
        if (body.endsWith(s.slice(0, k))) return `${body.slice(0, -k)}${REDACTED}…`;
  }
  return out;
}

/** `data` with the secrets cut from every string in it (keys too); one that no longer parses is dropped for a note. */
function scrubData(data: unknown, secrets: readonly string[]): unknown {
  const json = JSON.stringify(data);
  if (json === undefined) return data;
  // A secret with quotes or backslashes is written escaped inside the JSON text.
  const cut = scrub(json, [...secrets, ...secrets.map((s) => JSON.stringify(s).slice(1, -1))]);
  if (cut === json) return data;
  try {
    return JSON.parse(cut) as unknown;
  } catch {
    return REDACTED;
  }
}

/** `e` as it may leave the upstream client: an UpstreamError's message and data without `secrets`. */
export function redacted(e: unknown, secrets: readonly string[]): unknown {
  if (!(e instanceof UpstreamError) || secrets.length === 0) return e;
  const message = scrub(e.message, secrets);
  const data = e.data === undefined ? undefined : scrubData(e.data, secrets);
  if (message === e.message && data === e.data) return e;
  // Set after construction, which would cut the text again: a marker longer than the secret it
  // replaced may pass the bound by a few characters, and must not be cut in two.
  return Object.assign(new UpstreamError(e.kind, '', e.code, data, e.fault), { message });
}
