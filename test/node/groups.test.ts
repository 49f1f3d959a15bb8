/**
 * Prompt groups (docs/access-control.md, "Visibility") as authors write them: read from front
 * matter, kept by the serializer, accepted by the JSON Schema, and refused with a clear path and
 * line when malformed; and on upstream entries in UPSTREAMS.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { FileSource } from '../../cli/files.js';
import { loadPromptFiles } from '../../cli/load.js';
import { serializePrompt } from '../../cli/serialize.js';
import { parseUpstreams } from '../../src/catalog/upstreams/parse.js';
import { validatePrompt } from '../../src/catalog/validate.js';

const source = (files: Record<string, string>): FileSource => ({
  files: new Map(Object.entries(files)),
  readAsset: () => undefined,
});
const md = (front: string) => `---\nname: p\n${front}\n---\n\n## user\n\nhello\n`;
const schema = new Ajv2020({ allErrors: true, strict: false }).compile(
  JSON.parse(readFileSync('schema/prompt.schema.json', 'utf8')),
);
const record = (groups: unknown) => ({
  name: 'p',
  groups,
  messages: [{ role: 'user', content: { type: 'text', text: 'x' } }],
});

describe('prompt groups', () => {
  it('are read from front matter, survive a round trip, and pass the schema', () => {
    const { records, issues } = loadPromptFiles(
      source({ 'p.md': md('groups:\n  - eng\n  - okta:team/platform@corp') }),
    );
    expect(issues).toEqual([]);
    expect(records[0]!.groups).toEqual(['eng', 'okta:team/platform@corp']);
    const again = loadPromptFiles(source({ 'p.md': serializePrompt(records[0]!).text })).records[0];
    expect(again).toEqual(records[0]);
    expect(schema(records[0])).toBe(true);
  });

  it('bad groups fail validation with their path and line, and the schema agrees', () => {
    const { records, issues } = loadPromptFiles(
      source({ 'p.md': md('title: t\ngroups:\n  - eng\n  - "has space"\n  - eng') }),
    );
    expect(records).toEqual([]);
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'p.md:6: groups[1]: must be a group name: A-Z a-z 0-9 first, then A-Z a-z 0-9 _ . : @ / - (at most 64)',
      'p.md:7: groups[2]: duplicate group "eng"',
    ]);
    const cases: [unknown, string][] = [
      ['eng', 'groups'],
      [[], 'groups'],
      [['*'], 'groups[0]'],
      [['a,b'], 'groups[0]'],
      [['-lead'], 'groups[0]'],
      [[7], 'groups[0]'],
      [['x'.repeat(65)], 'groups[0]'],
      [Array.from({ length: 33 }, (_, i) => `g${i}`), 'groups'],
    ];
    for (const [groups, path] of cases) {
      expect(
        validatePrompt(record(groups)).map((i) => i.path),
        JSON.stringify(groups),
      ).toEqual([path]);
      expect(schema(record(groups)), JSON.stringify(groups)).toBe(false);
    }
    expect(validatePrompt(record(['a', 'b.c', 'x:y/z@w-1_2']))).toEqual([]);
  });

  it('an upstream entry may name groups for all its prompts; bad ones fail start-up', () => {
    const opts = { separator: '.', secrets: {}, ownSecrets: new Set<string>(), allowHttpLoopback: false };
    const [u] = parseUpstreams(JSON.stringify([{ id: 'gh', url: 'https://gh.example/mcp', groups: ['eng'] }]), opts);
    expect(u!.groups).toEqual(['eng']);
    expect(
      parseUpstreams(JSON.stringify([{ id: 'gh', url: 'https://gh.example/mcp' }]), opts)[0]!.groups,
    ).toBeUndefined();
    expect(() =>
      parseUpstreams(JSON.stringify([{ id: 'gh', url: 'https://gh.example/mcp', groups: ['a b'] }]), opts),
    ).toThrow(/UPSTREAMS\[0\]\.groups\[0\]: must be a group name/);
  });
});
