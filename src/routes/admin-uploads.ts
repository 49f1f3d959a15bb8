/**
 * /admin/uploads: a prompt set larger than one request (MAX_PUBLISH_PROMPTS prompts or
 * MAX_ADMIN_BODY bytes), published in parts and then as one change (catalog/staged-publish.ts;
 * docs/publishing.md, "Large catalogs"). `POST /` opens an upload, `POST /:id/prompts` adds a
 * part, `POST /:id/publish?prune&dry_run` publishes it, `DELETE /:id` abandons it, `GET /` lists
 * the open ones. Only the principal that opened an upload adds to it or publishes it; any admin may
 * delete one (a stale upload holds one of the few slots). The CLI's `push` uses it whenever a set
 * does not fit in one request.
 */
import { Hono, type Context } from 'hono';
import type { UploadResult } from '../catalog/staged-publish.js';
import { catalogWriter } from '../catalog/stubs.js';
import type { AppEnv } from '../env.js';
import { answer, flags, refusal, writeFlags } from './admin-answer.js';
import { actor } from './admin-auth.js';
import { readSet } from './admin-json.js';
import { ApiError } from './api-error.js';

export const adminUploads = new Hono<AppEnv>();

function uploaded(c: Context<AppEnv>, r: UploadResult, status: 200 | 201 = 200) {
  if (r.ok) return c.json({ upload: r.upload }, status);
  if (r.reason === 'invalid') throw refusal(422, 'invalid_prompts', 'nothing of this part was added', r.issues);
  if (r.reason === 'too_large') throw new ApiError(413, 'catalog_too_large', r.message);
  if (r.reason === 'too_many_prompts') throw new ApiError(413, 'too_many', r.message);
  if (r.reason === 'too_many_uploads') throw new ApiError(409, 'too_many_uploads', r.message);
  if (r.reason === 'not_yours') throw new ApiError(403, 'not_yours', r.message);
  throw new ApiError(404, 'not_found', r.message);
}

adminUploads.post('/', async (c) => {
  flags(c, []);
  return uploaded(c, await catalogWriter(c.env).openUpload(actor(c)), 201);
});

/** The uploads open now, oldest first, with who opened each: how a stale one is found, to be deleted. */
adminUploads.get('/', async (c) => c.json({ uploads: await catalogWriter(c.env).uploads() }));

adminUploads.post('/:id/prompts', async (c) => {
  flags(c, []);
  const part = await readSet(c, 'send the upload smaller parts');
  return uploaded(c, await catalogWriter(c.env).addToUpload(c.req.param('id'), part, actor(c)));
});

adminUploads.post('/:id/publish', async (c) =>
  answer(c, await catalogWriter(c.env).publishUpload(c.req.param('id'), { ...writeFlags(c), by: actor(c) })),
);

adminUploads.delete('/:id', async (c) => {
  flags(c, []);
  if (!(await catalogWriter(c.env).dropUpload(c.req.param('id'))))
    throw new ApiError(404, 'not_found', `No open upload "${c.req.param('id').slice(0, 64)}"`);
  return c.body(null, 204);
});
