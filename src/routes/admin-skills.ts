/**
 * /admin/skills: publishing skills (docs/skills.md). Files go first, by digest
 * (`PUT /admin/skills/files/sha256:<hex>`, idempotent, verified, stored once in KV); then the
 * records that name them are published through the CatalogWriter like prompts, every version
 * kept. Mounted under /admin, behind its authentication and rate limits.
 */
import { Hono, type Context } from 'hono';
import { catalogWriter } from '../catalog/stubs.js';
import {
  DIGEST_PATTERN,
  DigestMismatchError,
  MAX_DIGESTS,
  streamSkillFile,
  writeSkillFile,
} from '../catalog/skills/file-store.js';
import { MAX_PUBLISH_SKILLS, MAX_SKILL_FILE_BYTES, SKILL_FILE_LIMIT, SKILL_NAME } from '../catalog/skills/validate.js';
import type { AppEnv } from '../env.js';
import { readCapped } from '../lib/body.js';
import { actor } from './admin-auth.js';
import { answer, flags, historyAnswer, historyPage, listAnswer, writeFlags } from './admin-answer.js';
import { readJson } from './admin-json.js';
import { ApiError } from './api-error.js';
import { headerOf } from './scope.js';
import { log } from '../lib/log.js';

/** A plain parameter, checked by fileDigest(), so a wrong-shaped digest is a 400 that says so, not a 404. */
const FILE_ROUTE = '/files/:digest';

function fileDigest(c: Context<AppEnv>): string {
  const digest = c.req.param('digest') ?? '';
  if (!DIGEST_PATTERN.test(digest))
    throw new ApiError(400, 'invalid_digest', `Not a sha256: digest: ${digest.slice(0, 80)}`);
  return digest;
}

function skillName(name: string): string {
  if (!SKILL_NAME.test(name))
    throw new ApiError(400, 'invalid_name', 'Skill names use a-z 0-9 and single hyphens (at most 64 characters)');
  return name;
}

export const adminSkills = new Hono<AppEnv>();

/** Which of these digests the gateway does not hold yet: the CLI uploads only those. */
adminSkills.post('/files/missing', async (c) => {
  flags(c, []);
  const body = (await readJson(c)) as { digests?: unknown };
  const digests = body?.digests;
  if (!Array.isArray(digests) || digests.length > MAX_DIGESTS || !digests.every((d) => typeof d === 'string'))
    throw new ApiError(400, 'invalid_body', `Body must be {"digests": [...]} with at most ${MAX_DIGESTS} digests`);
  const bad = digests.find((d) => !DIGEST_PATTERN.test(d));
  if (bad !== undefined) throw new ApiError(400, 'invalid_digest', `Not a sha256: digest: ${bad.slice(0, 80)}`);
  return c.json({ missing: await catalogWriter(c.env).missingSkillFiles(digests) });
});

/** One file's bytes under their digest; refused when the bytes do not hash to it, or are more than one file may be. */
adminSkills.put(FILE_ROUTE, async (c) => {
  flags(c, []);
  const digest = fileDigest(c);
  const tooLarge = () => new ApiError(413, 'too_large', `A skill file is at most ${SKILL_FILE_LIMIT}`);
  if (Number(headerOf(c, 'content-length') ?? 0) > MAX_SKILL_FILE_BYTES) throw tooLarge();
  const body = c.req.raw.body as ReadableStream<Uint8Array> | null;
  let bytes: Uint8Array = new Uint8Array();
  try {
    if (body) bytes = await readCapped(body, MAX_SKILL_FILE_BYTES, tooLarge);
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(400, 'invalid_body', 'The body could not be read in full');
  }
  // The write hashes the bytes once; only its mismatch is the client's error, a KV failure is not.
  await writeSkillFile(c.env.PROMPTS, digest, bytes).catch((e: unknown) => {
    throw e instanceof DigestMismatchError
      ? new ApiError(400, 'digest_mismatch', `The body does not hash to ${digest}`)
      : e;
  });
  // The writer's record spares a publish the KV read; without it (a failed call) the publish reads KV instead.
  await catalogWriter(c.env)
    .skillFileStored(digest, bytes.byteLength)
    .catch((e: unknown) => log.warn('skill file upload not recorded by the writer', { digest, error: String(e) }));
  return c.json({ digest, size: bytes.byteLength });
});

/** The bytes of a file, for `promptgate pull`. `files/history` is the history of a skill named `files` (below). */
adminSkills.get(FILE_ROUTE, async (c, next) => {
  if (c.req.param('digest') === 'history') return next();
  flags(c, []);
  const body = await streamSkillFile(c.env.PROMPTS, fileDigest(c));
  if (!body) throw new ApiError(404, 'not_found', 'No file with this digest');
  return new Response(body, { headers: { 'content-type': 'application/octet-stream' } });
});

adminSkills.get('/', (c) => listAnswer(c, 'skills', (page) => catalogWriter(c.env).currentPage('skills', page)));

/** What to do with a set over the admin body cap or the skill count: a pruning publish names every skill at once. */
const SMALLER_SETS = 'publish the skills in smaller sets, without prune (which deletes every skill a set leaves out)';

/** The whole set, atomically, like POST /admin/publish: ?dry_run=1, ?prune=1. */
adminSkills.post('/publish', async (c) => {
  const body = (await readJson(c, SMALLER_SETS)) as { skills?: unknown };
  if (!body || typeof body !== 'object' || !Array.isArray(body.skills))
    throw new ApiError(400, 'invalid_body', 'Body must be {"skills": [...]}');
  if (body.skills.length > MAX_PUBLISH_SKILLS)
    throw new ApiError(413, 'too_many', `At most ${MAX_PUBLISH_SKILLS} skills per publish; ${SMALLER_SETS}`);
  const opts = { ...writeFlags(c), by: actor(c) };
  return answer(c, await catalogWriter(c.env).publishSkills(body.skills as unknown[], opts), 'skills');
});

/**
 * `GET /<name>`, `GET /<name>/history` and `POST /<name>/rollback` are one wildcard per method,
 * split here: beside `/publish` and `/files/…` as `/:name` routes, Hono's RegExpRouter refuses
 * the app's whole route set, and every request to the gateway then pays for the slower
 * TrieRouter (test/unit/router.test.ts). Anything else under the wildcard is a 404.
 */
function namePath(c: Context<AppEnv>): { name: string; rest: string } {
  const path = c.req.path;
  const tail = path.slice(path.indexOf('/skills/') + '/skills/'.length);
  const slash = tail.indexOf('/');
  const raw = slash < 0 ? tail : tail.slice(0, slash);
  let name: string;
  try {
    name = decodeURIComponent(raw);
  } catch {
    name = raw; // a malformed escape: skillName() refuses it as an invalid name
  }
  return { name: skillName(name), rest: slash < 0 ? '' : tail.slice(slash) };
}

adminSkills.get('/*', async (c) => {
  const { name, rest } = namePath(c);
  if (rest === '') {
    const { skill, versions, older } = await catalogWriter(c.env).getSkill(name);
    if (!skill && versions.length === 0) throw new ApiError(404, 'not_found', `No skill named "${name}"`);
    return c.json({ skill: skill?.record ?? null, version: skill?.version ?? null, versions, ...(older && { older }) });
  }
  if (rest !== '/history') return c.notFound();
  const page = historyPage(c);
  return historyAnswer(c, name, 'skill', await catalogWriter(c.env).skillHistory(name, page));
});

/** Like the prompts' single writes, these take no query: an ignored `?dry_run=1` would write for real. */
adminSkills.delete('/:name', async (c) => {
  flags(c, []);
  return answer(c, await catalogWriter(c.env).removeSkill(skillName(c.req.param('name')), actor(c)), 'skills');
});

adminSkills.post('/*', async (c) => {
  const { name, rest } = namePath(c);
  if (rest !== '/rollback') return c.notFound();
  flags(c, []);
  const body = (await readJson(c)) as { version?: unknown };
  if (!Number.isInteger(body?.version) || (body.version as number) < 1)
    throw new ApiError(400, 'invalid_body', 'Body must be {"version": <positive integer>}');
  return answer(c, await catalogWriter(c.env).rollbackSkill(name, body.version as number, actor(c)), 'skills');
});
