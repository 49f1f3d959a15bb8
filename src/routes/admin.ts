/**
 * /admin: authoring the catalog. Every write goes to the CatalogWriter
 * object (one writer, every version kept, each with who wrote it); this
 * file only speaks HTTP. Who may call it: admin-auth.ts, behind per-client
 * rate limits and a lock-out after repeated wrong tokens (limits.ts).
 * API keys: admin-keys.ts; usage counts: admin-usage.ts.
 * Errors are always JSON: {"error": {"code", "message", "issues"?}}.
 */
import { Hono, type Context } from 'hono';
import {
  forgetUpstreamConfig,
  upstreamProblems,
  UPSTREAMS_KEY,
  validateUpstreams,
} from '../catalog/upstreams/config.js';
import { UpstreamConfigError } from '../catalog/upstreams/schema.js';
import { refreshUpstreams } from '../catalog/upstreams/refresh.js';
import { configOf } from '../lib/config.js';
import { catalogWriter, upstreamStub } from '../catalog/stubs.js';
import { NAME_PATTERN } from '../catalog/validate.js';
import { quote } from '../catalog/issues.js';
import type { AppEnv } from '../env.js';
import { ApiError } from './api-error.js';
import { actor, crossSiteWrite, requireAdmin } from './admin-auth.js';
import { readJson, readSet } from './admin-json.js';
import { adminKeys } from './admin-keys.js';
import { adminSkills } from './admin-skills.js';
import { answer, flags, historyAnswer, historyPage, listAnswer, writeFlags } from './admin-answer.js';
import { adminUploads } from './admin-uploads.js';
import { adminUsage } from './admin-usage.js';
import { identify } from './auth.js';
import { adminRateLimit } from './limits.js';

function promptName(c: Context<AppEnv>): string {
  const name = c.req.param('name') ?? '';
  if (!NAME_PATTERN.test(name))
    throw new ApiError(
      400,
      'invalid_name',
      'Prompt names use A-Z a-z 0-9 _ . - (at most 64 characters) and do not start with a dot',
    );
  return name;
}

export const admin = new Hono<AppEnv>();

/**
 * No admin answer is kept by anything between the admin and the gateway: each tells of one moment
 * and carries what only an admin may read (a new API key, usage figures, upstream configuration).
 * Set after the handler, so a Response a handler built itself is covered too.
 */
admin.use('*', async (c, next) => {
  await next();
  if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
});
admin.use('*', adminRateLimit, crossSiteWrite, identify('admin'), requireAdmin);
admin.route('/keys', adminKeys);
admin.route('/usage', adminUsage);
admin.route('/skills', adminSkills);
admin.route('/uploads', adminUploads);

/** The current prompts, a page at a time (`?limit`, `?after`; admin-answer.ts). */
admin.get('/prompts', (c) => listAnswer(c, 'prompts', (page) => catalogWriter(c.env).currentPage('prompts', page)));

/** The prompt and its newest versions (at most MAX_VERSIONS_LISTED); `older` counts those /history pages to. */
admin.get('/prompts/:name', async (c) => {
  const { prompt, versions, older } = await catalogWriter(c.env).get(promptName(c));
  if (!prompt && versions.length === 0)
    throw new ApiError(404, 'not_found', `No prompt named "${c.req.param('name')}"`);
  return c.json({
    prompt: prompt?.record ?? null,
    version: prompt?.version ?? null,
    versions,
    ...(older && { older }),
  });
});

admin.get('/prompts/:name/history', async (c) => {
  const name = promptName(c);
  const page = historyPage(c);
  return historyAnswer(c, name, 'prompt', await catalogWriter(c.env).history(name, page));
});

/**
 * The single-prompt writes take no query: a `?dry_run=1` they ignored would write for real
 * (docs/publishing.md), so any parameter is a 400 before anything is written.
 */
admin.put('/prompts/:name', async (c) => {
  flags(c, []);
  const name = promptName(c);
  const body = (await readJson(c)) as Record<string, unknown>;
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new ApiError(400, 'invalid_body', 'Body must be one prompt record');
  if (body.name !== undefined && body.name !== name)
    throw new ApiError(400, 'name_mismatch', `Body names ${quote(body.name)} but the URL names "${name}"`);
  return answer(c, await catalogWriter(c.env).put({ ...body, name }, actor(c)));
});

admin.delete('/prompts/:name', async (c) => {
  flags(c, []);
  return answer(c, await catalogWriter(c.env).remove(promptName(c), actor(c)));
});

admin.post('/prompts/:name/rollback', async (c) => {
  flags(c, []);
  const name = promptName(c);
  const body = (await readJson(c)) as { version?: unknown };
  if (!Number.isInteger(body?.version) || (body.version as number) < 1)
    throw new ApiError(400, 'invalid_body', 'Body must be {"version": <positive integer>}');
  return answer(c, await catalogWriter(c.env).rollback(name, body.version as number, actor(c)));
});

/** The whole set, atomically: ?dry_run=1 returns the diff only; ?prune=1 deletes prompts missing from the set. */
admin.post('/publish', async (c) =>
  answer(c, await catalogWriter(c.env).publishSet(await readSet(c), { ...writeFlags(c), by: actor(c) })),
);

/** Replaces the whole catalog: the same as POST /publish?prune=1 (whose ?dry_run=1 shows what it would do). */
admin.put('/catalog', async (c) => {
  flags(c, []);
  return answer(
    c,
    await catalogWriter(c.env).publishSet(await readSet(c), { prune: true, dryRun: false, by: actor(c) }),
  );
});

/** Re-reads every upstream now (the cron does it every minute). */
admin.post('/upstreams/refresh', async (c) => {
  flags(c, []);
  return c.json({ upstreams: await refreshUpstreams(c.env) });
});

/**
 * The upstream list in force: set here (stored in KV), or the UPSTREAMS var; `problems` names what
 * left entries of it out (config.ts). A var that is no JSON is shown as the text it is.
 */
admin.get('/upstreams', async (c) => {
  const [stored, problems] = await Promise.all([c.env.PROMPTS.get(UPSTREAMS_KEY), upstreamProblems(c.env)]);
  const raw = stored ?? (configOf(c.env).upstreamsJson || '[]');
  let upstreams: unknown = raw;
  try {
    upstreams = JSON.parse(raw);
  } catch {
    // Named among the problems.
  }
  return c.json({ source: stored === null ? 'var' : 'admin', upstreams, problems });
});

/** Replaces the upstream list (same JSON as the UPSTREAMS var), validated first; lists the new ones at once. */
admin.put('/upstreams', async (c) => {
  flags(c, []);
  const body = await readJson(c);
  if (!Array.isArray(body))
    throw new ApiError(400, 'invalid_body', 'Body must be a JSON array of upstreams, as in the UPSTREAMS var');
  const raw = JSON.stringify(body);
  try {
    validateUpstreams(c.env, raw);
  } catch (e) {
    if (e instanceof UpstreamConfigError)
      throw new ApiError(
        422,
        'invalid_upstreams',
        'Nothing was changed',
        e.message
          .split('\n')
          .slice(1)
          .map((l) => l.trim()),
      );
    throw e;
  }
  return c.json(await applyUpstreams(c.env, raw));
});

/** Goes back to the UPSTREAMS var. */
admin.delete('/upstreams', async (c) => {
  flags(c, []);
  return c.json(await applyUpstreams(c.env, null));
});

/**
 * The writer takes the list: it decides who sees each upstream from its own copy, and writes KV's
 * (for the isolates and the upstreams' objects) under the same lock. Every step is idempotent, so a
 * failed call is safely repeated whole. The refresh lists the upstreams of the list just set, not
 * of a KV read that may not show it yet.
 */
async function applyUpstreams(env: Env, raw: string | null) {
  const { removed } = await catalogWriter(env).setUpstreams(raw);
  forgetUpstreamConfig(env);
  // Removed or disabled upstreams stop following their change streams now; moved ones restart in their refresh.
  await Promise.all(
    removed.map((id) =>
      upstreamStub(env, id)
        .reconcile(id)
        .catch(() => undefined),
    ),
  );
  return {
    removed,
    upstreams: await refreshUpstreams(env, validateUpstreams(env, raw ?? configOf(env).upstreamsJson)),
  };
}
