/**
 * /admin/keys: minting, listing and revoking API keys (catalog/keys-table.ts
 * stores them in the writer object). The secret is in the 201 answer to the
 * POST and nowhere else, ever; listings carry neither it nor its hash.
 */
import { Hono } from 'hono';
import { forgetKey, keyIsAdmin } from '../auth/api-key.js';
import { KEY_ID_PATTERN, type KeyInfo } from '../catalog/keys-table.js';
import { catalogWriter } from '../catalog/stubs.js';
import type { AppEnv } from '../env.js';
import { log } from '../lib/log.js';
import { ApiError } from './api-error.js';
import { flags, refusal } from './admin-answer.js';
import { actor } from './admin-auth.js';
import { readJson } from './admin-json.js';

export const adminKeys = new Hono<AppEnv>();

/** A key as answered: `admin` is whether it is one now, by its flag, scopes or ADMIN_GROUPS. */
const shown = (env: Env, k: KeyInfo): KeyInfo => ({ ...k, admin: keyIsAdmin(env, k) });

// Key writes take no query, as the other single-record writes (docs/publishing.md): a flag they
// ignored would not do what it says.
adminKeys.post('/', async (c) => {
  flags(c, []);
  const r = await catalogWriter(c.env).createKey(await readJson(c), actor(c));
  if (!r.ok) {
    if (r.reason === 'too_many') throw new ApiError(400, 'too_many_keys', r.message);
    throw refusal(400, 'invalid_key', 'no key was created', r.issues);
  }
  log.info('API key created', { id: r.info.id, by: r.info.createdBy });
  return c.json({ key: r.key, ...shown(c.env, r.info) }, 201);
});

/** Active keys and the newest revoked or expired ones; `omitted` counts the older inactive ones left out. */
adminKeys.get('/', async (c) => {
  const { keys, omitted } = await catalogWriter(c.env).listKeys();
  return c.json({ keys: keys.map((k) => shown(c.env, k)), ...(omitted > 0 && { omitted }) });
});

/** Idempotent: revoking a revoked key answers the first revocation. */
adminKeys.delete('/:id', async (c) => {
  flags(c, []);
  const id = c.req.param('id');
  const info = KEY_ID_PATTERN.test(id) ? await catalogWriter(c.env).revokeKey(id) : undefined;
  // The id is not echoed: a secret pasted here by mistake must not come back in the answer.
  if (!info) throw new ApiError(404, 'not_found', 'No key with this id');
  forgetKey(id);
  log.info('API key revoked', { key: id, by: actor(c) });
  return c.json(shown(c.env, info));
});
