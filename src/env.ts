/**
 * The Hono env type of every route, declared once: the Worker's bindings
 * (the generated `Env`) and the variables set on the request context.
 */
import type { RequestScope } from './lib/scope.js';

export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** The request's scope, built on first use by routes/scope.ts. */
    scope?: RequestScope;
  };
};
