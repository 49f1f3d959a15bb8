/**
 * The first middleware of every route: once the response is ready, the
 * request's record (lib/record.ts) becomes its one log line, its span and
 * Server-Timing (observe/), and its usage counts (usage/). Nothing here
 * waits on storage: counting only adds to this isolate's tallies.
 */
import type { MiddlewareHandler } from 'hono';
import type { AppEnv } from '../env.js';
import { finishRequest } from '../observe/finish.js';
import { countUsage, sendKept } from '../usage/count.js';
import { methodOf, onMcp, scopeOf } from './scope.js';

export const observe: MiddlewareHandler<AppEnv> = async (c, next) => {
  const scope = scopeOf(c);
  await next();
  const { response, ...outcome } = finishRequest(scope, methodOf(c), c.req.path, c.res);
  // Only when Server-Timing had to re-wrap a response with immutable headers.
  if (response !== c.res) c.res = response;
  // Usage and error classes are the MCP endpoint's (docs/observability.md): /admin, /status and the
  // pages are logged, not counted.
  if (onMcp(c)) countUsage(scope, outcome);
  else sendKept(scope);
};
