/**
 * Reading an authorization server's JSON reply (metadata, JWKS, introspection) with a byte cap,
 * through the upstream reader (catalog/upstreams/body.ts): past MAX_AUTH_REPLY_BYTES the body is
 * cancelled and nothing more is read, so a broken or hostile server cannot make an isolate hold
 * an endless answer. Over the cap is the server's failure, like a server that cannot be reached:
 * the callers answer 503 as they do for one.
 */
import { readCapped } from '../catalog/upstreams/body.js';
import { UpstreamError } from '../catalog/upstreams/errors.js';
import { log } from '../lib/log.js';

/** 64 KiB: a JWK set of dozens of RSA keys, or any metadata or introspection answer, is far below. */
export const MAX_AUTH_REPLY_BYTES = 64 * 1024;

/** The reply's text; throws when it passes the cap. */
export async function replyText(res: Response, url: string): Promise<string> {
  try {
    return await readCapped(res, MAX_AUTH_REPLY_BYTES);
  } catch (e) {
    if (!(e instanceof UpstreamError && e.fault === 'too_large')) throw e;
    // Origin and path only: a query string could carry something that is not for the logs.
    const at = new URL(url);
    const where = `${at.origin}${at.pathname}`;
    log.warn('auth: an authorization server reply passed the byte cap; refused', {
      url: where,
      maxBytes: MAX_AUTH_REPLY_BYTES,
    });
    throw new Error(`the reply of ${where} passed ${MAX_AUTH_REPLY_BYTES} bytes`, { cause: e });
  }
}

/** The reply's parsed JSON, or null when it is not JSON; throws when it passes the cap. */
export async function replyJson(res: Response, url: string): Promise<unknown> {
  const text = await replyText(res, url);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
