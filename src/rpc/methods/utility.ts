/**
 * ping and logging/setLevel. The level is session state, so it is kept by
 * the session's Durable Object, never only in the isolate.
 */
import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { principalIdOf } from '../../lib/caller.js';
import { markEnded, sessionInit, setSessionLogLevel } from '../../session/sessions.js';
import { invalidParams, sessionNotFound } from '../errors.js';
import type { Params } from '../envelope.js';
import type { CallContext } from '../context.js';

const LEVELS: readonly LoggingLevel[] = [
  'debug',
  'info',
  'notice',
  'warning',
  'error',
  'critical',
  'alert',
  'emergency',
];

export function ping(): Record<string, never> {
  return {};
}

export async function setLevel(params: Params, ctx: CallContext): Promise<Record<string, never>> {
  const level = params?.level;
  if (!LEVELS.includes(level as LoggingLevel)) throw invalidParams(`level must be one of ${LEVELS.join(', ')}`);
  const init = await sessionInit(ctx.secret, ctx.sessionId, principalIdOf(ctx.principal));
  if (init && (await setSessionLogLevel(ctx.env, init, level as LoggingLevel))) return {};
  // Ended (or idle past its TTL) on another isolate after this one's liveness memo vouched for it:
  // its object says so, and the session is gone for this request as for any later one.
  if (init) markEnded(init.id);
  throw sessionNotFound(ctx.requestId);
}
