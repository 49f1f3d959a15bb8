/**
 * Per-client rate limits on /mcp, /admin, /status, the catalog pages and
 * credentialed listings, with Cloudflare's Rate Limiting bindings
 * (wrangler.toml `[[ratelimits]]`; Miniflare runs them locally; counted per
 * Cloudflare location). The key is the client's address (CF-Connecting-IP;
 * an IPv6 client's /64), never a token. Over a limit: HTTP 429 with
 * Retry-After; on /mcp the body is the JSON-RPC -32000 error, elsewhere the
 * `{error}` body.
 *
 * /admin also counts failed token checks, and so do the other routes for
 * bearers that could be guesses at ADMIN_TOKEN (token-guesses.ts). A client
 * over that limit is locked out (right token or not) until the period ends,
 * so a burst of guesses cannot keep going, and cannot learn from a 200
 * either. The lock-out memo is per isolate; the bindings' counts are shared.
 *
 * A binding that is not configured (or RATE_LIMITS = "off", for load
 * tests) limits nothing; a binding that fails lets the request through
 * with a log line rather than turning an outage of the limiter into one
 * of the gateway.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { clientKey } from '../lib/client-address.js';
import { configOf } from '../lib/config.js';
import { BoundedMap } from '../lib/memo.js';
import { ErrorCode, HttpError } from '../rpc/errors.js';
import { ApiError } from './api-error.js';
import type { AppEnv } from '../env.js';
import { log } from '../lib/log.js';
import { ACCESS_HEADER } from '../auth/access.js';
import { earlyCorsHeaders } from './guards.js';
import { headerOf, onMcp } from './scope.js';

/** The period of every `[[ratelimits]]` binding in wrangler.toml, in seconds: the Retry-After we send. */
export const RATE_PERIOD_S = 60;

type LimiterName = 'MCP_RATE_LIMIT' | 'ADMIN_RATE_LIMIT' | 'ADMIN_AUTH_RATE_LIMIT';

export const clientOf = (c: Context<AppEnv>) => clientKey(headerOf(c, 'cf-connecting-ip'));

function limiter(c: Context<AppEnv>, name: LimiterName): RateLimit | undefined {
  if (!configOf(c.env).rateLimits) return undefined;
  return (c.env as Partial<Record<LimiterName, RateLimit>>)[name];
}

/** True when the client is within `name`'s limit (counting this request). */
async function within(binding: RateLimit, name: LimiterName, key: string): Promise<boolean> {
  try {
    return (await binding.limit({ key })).success;
  } catch (e) {
    log.error('rate limiter failed; request let through', { limiter: name, error: String(e) });
    return true;
  }
}

/**
 * The per-client budget (MCP_RATE_LIMIT), answered with `refusal` when spent. Synchronous without
 * a limiter: no promise of its own on the hot path.
 */
function perClient(c: Context<AppEnv>, next: () => Promise<void>, refusal: () => Error): Promise<void> {
  const binding = limiter(c, 'MCP_RATE_LIMIT');
  if (!binding) return next();
  return within(binding, 'MCP_RATE_LIMIT', clientOf(c)).then((ok) => {
    if (!ok) throw refusal();
    return next();
  });
}

/**
 * On the hot path of every /mcp request, before the HTTP guards; over the budget, the JSON-RPC
 * -32000 error, after the Origin rule (a disallowed origin is a 403 first; an allowed one can read it).
 */
export const mcpRateLimit: MiddlewareHandler<AppEnv> = (c, next) =>
  perClient(
    c,
    next,
    () =>
      new HttpError(
        429,
        ErrorCode.Transport,
        `Too Many Requests: this client is over its request rate; retry after ${RATE_PERIOD_S} s`,
        { headers: { 'retry-after': String(RATE_PERIOD_S), ...earlyCorsHeaders(c) } },
      ),
  );

/**
 * The same per-client budget as /mcp, for the other routes that cost more than a cached read:
 * /status (several Durable Objects), the catalog pages, and any request that presents a credential
 * (each unknown one is a lookup at the catalog writer or an issuer). Over it: 429 with the
 * `{error}` body. An anonymous GET /prompts, served from caches, is not counted.
 */
export const clientRateLimit =
  (when: 'always' | 'credentialed'): MiddlewareHandler<AppEnv> =>
  (c, next) => {
    const credential = headerOf(c, 'authorization') !== undefined || headerOf(c, ACCESS_HEADER) !== undefined;
    if (when === 'credentialed' && !credential) return next();
    return perClient(c, next, () => tooMany(c, 'requests'));
  };

/** Clients locked out of /admin after too many failed token checks, until when (ms). */
const lockedOut = new BoundedMap<string, number>(10_000);

/** The 429 in the route's shape: the JSON-RPC -32000 error on /mcp, the `{error}` body elsewhere. */
function tooMany(c: Context<AppEnv>, why: string, code = 'rate_limited'): Error {
  const message = `Too many ${why} from this client; retry after ${RATE_PERIOD_S} s`;
  if (onMcp(c))
    return new HttpError(429, ErrorCode.Transport, `Too Many Requests: ${message}`, {
      headers: { 'retry-after': String(RATE_PERIOD_S) },
    });
  c.header('retry-after', String(RATE_PERIOD_S));
  return new ApiError(429, code, message);
}

/** Whether this client is locked out after too many failed token checks. */
export function isLockedOut(c: Context<AppEnv>): boolean {
  const client = clientOf(c);
  const until = lockedOut.get(client);
  if (until === undefined) return false;
  if (until > Date.now()) return true;
  lockedOut.delete(client);
  return false;
}

/**
 * The lock-out's 429, in the route's shape; `locked_out` outside /mcp, so a client that waits out a
 * rate limit (the CLI) can tell that waiting will not help a wrong token.
 */
export const lockedOutError = (c: Context<AppEnv>): Error => tooMany(c, 'failed admin token checks', 'locked_out');

/** Throws the 429 while this client is locked out after too many failed token checks. */
export function refuseIfLockedOut(c: Context<AppEnv>): void {
  if (isLockedOut(c)) throw lockedOutError(c);
}

/** Every /admin request, before its token is looked at. */
export const adminRateLimit: MiddlewareHandler<AppEnv> = async (c, next) => {
  refuseIfLockedOut(c);
  const binding = limiter(c, 'ADMIN_RATE_LIMIT');
  if (binding && !(await within(binding, 'ADMIN_RATE_LIMIT', clientOf(c)))) throw tooMany(c, 'admin requests');
  await next();
};

/** Records a failed token check; throws the 429 (and locks the client out) once there were too many. */
export async function authFailed(c: Context<AppEnv>): Promise<void> {
  const binding = limiter(c, 'ADMIN_AUTH_RATE_LIMIT');
  const client = clientOf(c);
  if (binding && !(await within(binding, 'ADMIN_AUTH_RATE_LIMIT', client))) {
    lockedOut.set(client, Date.now() + RATE_PERIOD_S * 1000);
    throw lockedOutError(c);
  }
}
