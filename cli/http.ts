/**
 * How the admin client (api.ts) sends one request: a 429 is waited out and the same request sent
 * again. /admin is rate limited per client address (60 a minute, docs/configuration.md#limits),
 * and pull and push send one request per skill file, so a large catalog meets the limit in the
 * middle of a command; giving up there would fail every large pull. The waits are bounded, so a
 * gateway that keeps refusing ends the command with a clear error rather than a hang. Once the
 * command is stopped by a signal (interrupt.ts), only the requests that undo its work are sent.
 * A redirect is an error naming where it points, and a request that got no answer says whether
 * it may have been applied.
 */
import { withoutSecrets } from '../src/lib/clip.js';
import { CliError } from './api-types.js';
import { stopped } from './interrupt.js';

export interface RetryOptions {
  /** The longest one wait, in seconds, whatever Retry-After asks for. */
  maxWaitS?: number;
  /** 429s in a row for one request before giving up. */
  maxRefusals?: number;
  /** Where the line saying why the command paused goes (default: stderr). */
  notice?: (line: string) => void;
}

/** The gateway's own period: what a 429 without a usable Retry-After is taken to mean. */
const DEFAULT_WAIT_S = 60;
const MAX_REFUSALS = 5;

/** Retry-After as seconds to wait (a number of seconds or an HTTP date), or undefined when unusable. */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text);
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** A wait that a signal ends early (`signal` undefined: one that only time ends). */
const sleep = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((r) => {
    const done = () => (clearTimeout(timer), r());
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });

/** `text` with every credential of the request left out: an error message is printed, and logged. */
function redacted(text: string, url: URL, headers: Record<string, string>): string {
  const auth = headers.authorization;
  return withoutSecrets(text, [auth, auth?.replace(/^\S+ +/, ''), url.username, url.password], '[credential]');
}

/**
 * Error codes of a request that never reached the gateway: no connection (refused, no route, a name
 * that does not resolve) or no TLS session. Any other network error may have come after the body was sent.
 */
const NOT_SENT =
  /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EAI_FAIL|EHOSTUNREACH|ENETUNREACH|EHOSTDOWN|ENETDOWN|EADDRNOTAVAIL|UND_ERR_CONNECT_TIMEOUT|ERR_TLS_\w+|ERR_SSL_\w+|CERT_\w+|UNABLE_TO_\w+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)$/;

/** Why fetch rejected, without credentials: and, for a write, whether the gateway may have done it. */
function unanswered(e: unknown, url: URL, init: Omit<Request, 'undo'>): CliError {
  // fetch refuses a request it cannot make (a header it cannot carry) itself, with no network cause.
  const cause = (e as Error).cause;
  const code = (cause as { code?: unknown } | undefined)?.code;
  const why = redacted(String(cause ?? e), url, init.headers);
  if (cause === undefined || (typeof code === 'string' && NOT_SENT.test(code)))
    return new CliError(`cannot reach ${url.origin}: ${why}`);
  const applied = init.method === 'GET' || init.method === 'HEAD' ? '' : ' (the request may have been applied)';
  return new CliError(`no answer from ${url.origin} to ${init.method} ${url.pathname}${applied}: ${why}`, !!applied);
}

/** A redirect is not followed: fetch would drop the token on a move to another origin, and make a POST a GET. */
function redirectError(res: Response, url: URL, init: Omit<Request, 'undo'>): CliError {
  const to = res.headers.get('location');
  const href = to !== null && URL.canParse(to, url.href) ? new URL(to, url).href : to;
  const where = href === null ? 'no Location' : redacted(href, url, init.headers);
  return new CliError(
    `${init.method} ${url.pathname}: the gateway answered HTTP ${res.status}, a redirect to ${where}, which is not followed; ` +
      'use the final URL as --url (or PROMPTGATE_URL)',
  );
}

export interface Request {
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
  /** Undoes an interrupted command's work (interrupt.ts): sent, and not aborted, after a signal. */
  undo?: boolean;
}

/**
 * Sends the request, waiting out each 429 (a 429 means the gateway did not process it, so any
 * method may be sent again). `body` must be a string or bytes, never a stream, so it can be re-sent.
 */
export async function send(url: URL, request: Request, opts: RetryOptions = {}): Promise<Response> {
  const { undo, ...init } = request;
  const signal = undo ? undefined : stopped;
  const maxWaitS = opts.maxWaitS ?? DEFAULT_WAIT_S;
  const maxRefusals = opts.maxRefusals ?? MAX_REFUSALS;
  const notice = opts.notice ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const what = `${init.method} ${url.pathname}`;
  let waited = 0;
  for (let refusals = 1; ; refusals++) {
    signal?.throwIfAborted();
    let res: Response;
    try {
      res = await fetch(url, { ...init, signal, redirect: 'manual' });
    } catch (e) {
      signal?.throwIfAborted();
      throw unanswered(e, url, init);
    }
    if ([301, 302, 303, 307, 308].includes(res.status)) {
      await res.body?.cancel();
      throw redirectError(res, url, init);
    }
    if (res.status !== 429) return res;
    const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
    const message = body?.error?.message;
    // Locked out after wrong tokens: waiting will not make this token right.
    if (body?.error?.code === 'locked_out')
      throw new CliError(
        `${what}: ${message ?? 'locked out'} (HTTP 429); check the token (--token or PROMPTGATE_TOKEN)`,
      );
    if (refusals === maxRefusals)
      throw new CliError(
        `${what} was refused ${refusals} times in a row over ${waited} s (HTTP 429: ${message ?? 'Too Many Requests'}); ` +
          'the gateway rate limits /admin per client address: try again later',
      );
    const wait = Math.min(retryAfterSeconds(res.headers.get('retry-after')) ?? DEFAULT_WAIT_S, maxWaitS);
    notice(
      `promptgate: the gateway's rate limit was reached (HTTP 429); waiting ${wait} s, then sending ${what} again`,
    );
    await sleep(wait * 1000, signal);
    waited += wait;
  }
}
