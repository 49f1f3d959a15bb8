/**
 * Skills for flow tests, written where publishing puts them: each file's bytes in KV by digest
 * (writeSkillFile) and the records in a new catalog snapshot (writeSnapshot), the prompts kept.
 * Generations follow the writer's rule (never below the clock or the last one), so a later publish
 * still moves forward.
 */
import { env } from 'cloudflare:test';
import { digestOf, writeSkillFile } from '../../src/catalog/skills/file-store.js';
import { writeSnapshot } from '../../src/catalog/snapshot-write.js';
import type { CatalogSnapshot, SkillRecord, UpstreamState } from '../../src/catalog/types.js';

export interface SeedFile {
  path: string;
  content: string | Uint8Array;
  mimeType?: string;
}

const bytesOf = (c: string | Uint8Array) => (typeof c === 'string' ? new TextEncoder().encode(c) : c);

/** The SKILL.md text whose front matter is exactly `{name, description}`. */
export const manifest = (name: string, description: string, body = `# ${name}\n\nUse it well.\n`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** A skill record with its files stored in KV; SKILL.md first unless `files` has one. */
export async function storeSkill(
  name: string,
  description: string,
  files: SeedFile[] = [],
  groups?: string[],
): Promise<SkillRecord> {
  const all = files.some((f) => f.path === 'SKILL.md')
    ? files
    : [{ path: 'SKILL.md', content: manifest(name, description) }, ...files];
  const records = await Promise.all(
    all.map(async (f) => {
      const bytes = bytesOf(f.content);
      const digest = await digestOf(bytes);
      await writeSkillFile(env.PROMPTS, digest, bytes);
      return { path: f.path, digest, size: bytes.byteLength, ...(f.mimeType && { mimeType: f.mimeType }) };
    }),
  );
  records.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { name, frontmatter: { name, description }, files: records, ...(groups && { groups }) };
}

/** Serves these skills (and upstream states) in a new generation, keeping the published prompts. */
export async function seedSkills(
  skills: SkillRecord[],
  upstreams: UpstreamState[] = [],
  extra: Partial<CatalogSnapshot> = {},
): Promise<number> {
  const head = await env.PROMPTS.get<CatalogSnapshot>('catalog/head', 'json');
  const generation = Math.max(Date.now(), (head?.generation ?? 0) + 1);
  await writeSnapshot(env.PROMPTS, {
    generation,
    updatedAt: new Date().toISOString(),
    prompts: head?.prompts ?? [],
    skills,
    upstreams,
    ...extra,
  });
  return generation;
}
