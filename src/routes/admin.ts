/**
 * /admin: publishing prompts. This first slice replaces the whole catalog
 * atomically (PUT /admin/catalog); per-prompt endpoints, versions and
 * history follow with the catalog writer object.
 *
 * Bearer ADMIN_TOKEN, compared in constant time. With no token configured
 * the admin API does not exist (404), so a forgotten secret fails closed.
 * Errors are JSON: {"error": {"code", "message", "issues"?}}.
 */
import { Hono, type MiddlewareHandler } from 'hono';
import { publishPrompts } from '../catalog/publish.js';
import { readGeneration } from '../catalog/store.js';
import { validateSet } from '../catalog/validate.js';
import { safeEqual } from '../lib/hmac.js';
import type { AppEnv } from './guards.js';

export class AdminError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 413 | 415 | 422,
    readonly code: string,
    message: string,
    readonly issues?: unknown,
  ) {
    super(message);
  }
}

export const MAX_ADMIN_BODY = 5 * 1024 * 1024;

const requireToken: MiddlewareHandler<AppEnv> = async (c, next) => {
  const expected = (c.env as { ADMIN_TOKEN?: string }).ADMIN_TOKEN;
  if (!expected) throw new AdminError(404, 'admin_disabled', 'The admin API is disabled: set the ADMIN_TOKEN secret to enable it');
  const given = /^Bearer (.+)$/i.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
  if (!safeEqual(given, expected)) {
    c.header('www-authenticate', 'Bearer realm="promptgate-admin"');
    throw new AdminError(401, 'unauthorized', 'A valid Authorization: Bearer <ADMIN_TOKEN> header is required');
  }
  await next();
};

async function readJson(req: Request): Promise<unknown> {
  if (!/^application\/json\s*(;|$)/i.test(req.headers.get('content-type') ?? '')) throw new AdminError(415, 'unsupported_media_type', 'Send application/json');
  const text = await req.text();
  if (text.length > MAX_ADMIN_BODY) throw new AdminError(413, 'too_large', `Body over ${MAX_ADMIN_BODY} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new AdminError(400, 'invalid_json', 'Body is not valid JSON');
  }
}

export const admin = new Hono<AppEnv>();

admin.use('*', requireToken);

admin.get('/catalog', async (c) => c.json({ generation: await readGeneration(c.env.PROMPTS) }));

admin.put('/catalog', async (c) => {
  const body = (await readJson(c.req.raw)) as { prompts?: unknown };
  if (!body || typeof body !== 'object' || !Array.isArray(body.prompts)) throw new AdminError(400, 'invalid_body', 'Body must be {"prompts": [...]}');
  const issues = validateSet(body.prompts);
  if (issues.length) throw new AdminError(422, 'invalid_prompts', `${issues.length} problem(s); nothing was published`, issues);
  const snap = await publishPrompts(c.env, body.prompts as never);
  console.log(JSON.stringify({ msg: 'catalog published', generation: snap.generation, prompts: snap.prompts.length }));
  return c.json({ generation: snap.generation, prompts: snap.prompts.length });
});
