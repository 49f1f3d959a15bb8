/**
 * The writer's table of stored skill files (skill-files-table.ts): a check of many files makes no
 * KV operation for files it knows, and a bounded number for files it does not, since Cloudflare
 * allows 1,000 KV operations per invocation and Miniflare enforces none. The KV here is the real
 * namespace, wrapped only to count the calls made on it.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { KV_LOOKUPS_PER_CALL, SkillFilesTable } from '../../src/catalog/skill-files-table.js';
import { digestOf, writeSkillFile } from '../../src/catalog/skills/file-store.js';
import { writerObject } from '../../src/catalog/stubs.js';

function counting(kv: KVNamespace): { kv: KVNamespace; ops: () => number } {
  let ops = 0;
  const wrapped = new Proxy(kv, {
    get(target, prop) {
      const v = Reflect.get(target, prop) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        ops++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { kv: wrapped, ops: () => ops };
}

/** `n` distinct small files stored in KV; their digests and sizes. */
async function storeFiles(tag: string, n: number): Promise<{ digest: string; size: number }[]> {
  const files = await Promise.all(
    Array.from({ length: n }, async (_, i) => {
      const bytes = new TextEncoder().encode(`${tag} file ${i}`);
      return { digest: await digestOf(bytes), size: bytes.byteLength, bytes };
    }),
  );
  for (let i = 0; i < files.length; i += 100)
    await Promise.all(files.slice(i, i + 100).map((f) => writeSkillFile(env.PROMPTS, f.digest, f.bytes)));
  return files.map(({ digest, size }) => ({ digest, size }));
}

const inWriter = <T>(fn: (sql: SqlStorage) => Promise<T>) =>
  runInDurableObject(writerObject(env), (_o, ctx) => fn(ctx.storage.sql));

describe('the stored skill files table', () => {
  it('checks 1,200 uploaded files without a single KV operation', async () => {
    const files = await storeFiles('known', 1_200);
    const result = await inWriter(async (sql) => {
      const counted = counting(env.PROMPTS);
      const table = new SkillFilesTable(sql, counted.kv);
      for (const f of files) table.stored(f.digest, f.size);
      const { sizes, unchecked } = await table.sizes(files.map((f) => f.digest));
      return {
        ops: counted.ops(),
        sizes: [...sizes.values()],
        unchecked,
        missing: await table.missing([files[0]!.digest]),
      };
    });
    expect(result.ops).toBe(0);
    expect(result.sizes).toEqual(files.map((f) => f.size));
    expect(result.unchecked).toEqual([]);
    expect(result.missing).toEqual([]);
  });

  it('looks up files it does not know in KV, a bounded number per call, and knows them after', async () => {
    const files = await storeFiles('unknown', 700);
    const absent = `sha256:${'0'.repeat(64)}`;
    const digests = [absent, ...files.map((f) => f.digest)];
    const calls = await inWriter(async (sql) => {
      const counted = counting(env.PROMPTS);
      const table = new SkillFilesTable(sql, counted.kv);
      const rounds: { ops: number; missing: number }[] = [];
      for (let r = 0; r < 4; r++) {
        const before = counted.ops();
        const missing = await table.missing(digests);
        rounds.push({ ops: counted.ops() - before, missing: missing.length });
      }
      return { rounds, last: await table.missing(digests) };
    });
    for (const r of calls.rounds) expect(r.ops).toBeLessThanOrEqual(KV_LOOKUPS_PER_CALL);
    // Each call confirms up to the bound; the rest are reported missing until looked up (uploading again is harmless).
    // 250 looked up a call: the absent file and 249 others (it is first, so looked up each time).
    expect(calls.rounds.map((r) => r.missing)).toEqual([452, 203, 1, 1]);
    expect(calls.last).toEqual([absent]);
  });
});
