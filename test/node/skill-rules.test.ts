/**
 * What the official SDK's SkillsClient refuses in a skills/list (src/catalog/skills/entry-rules.ts),
 * checked against the SDK itself: a local record it would refuse is refused at publish (validate.ts),
 * an upstream entry it would refuse is skipped (skill-entries.ts), and what is served passes it. And
 * the paths no host can write side by side: a file that is another's folder, or two names that a
 * case-insensitive or normalising file system takes for one.
 */
import { Client, InMemoryTransport, type JSONRPCMessage } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect, it } from 'vitest';
import { indexSkills } from '../../src/catalog/skills/index.js';
import { describeSkill } from '../../src/catalog/skills/lists.js';
import { validateSkill } from '../../src/catalog/skills/validate.js';
import { clientUri, mapSkill, mapSkills } from '../../src/catalog/upstreams/skill-entries.js';
import type { SkillRecord } from '../../src/catalog/types.js';

const D = `sha256:${'a'.repeat(64)}`;
/** One character outside the BMP: two UTF-16 units, one character to the SDK. */
const CLEF = '\u{1d11e}';

/** The URIs of the entries SkillsClient.list refuses when a server's skills/list holds `entries`. */
async function sdkRefuses(entries: readonly unknown[]): Promise<(string | undefined)[]> {
  const [near, far] = InMemoryTransport.createLinkedPair();
  far.onmessage = (m: JSONRPCMessage) => {
    if (!('id' in m) || !('method' in m)) return;
    const reply = (answer: object) => void far.send({ jsonrpc: '2.0', id: m.id, ...answer } as JSONRPCMessage);
    if (m.method === 'initialize')
      return reply({
        result: {
          protocolVersion: '2025-11-25',
          capabilities: { resources: {}, extensions: { 'io.modelcontextprotocol/skills': {} } },
          serverInfo: { name: 'entries', version: '1' },
        },
      });
    if (m.method === 'skills/list') return reply({ result: { skills: entries } });
    reply({ error: { code: -32601, message: 'Method not found' } });
  };
  await far.start();
  const client = new Client({ name: 'rules', version: '1' });
  await client.connect(near);
  try {
    const { invalid } = await new SkillsClient(client, { skipInvalid: true }).list();
    return invalid.map((e) => e.uri);
  } finally {
    await client.close();
  }
}

const record = (frontmatter: Record<string, unknown>, paths = ['SKILL.md']): SkillRecord => ({
  name: 'notes',
  frontmatter: { name: 'notes', description: 'Takes notes.', ...frontmatter },
  files: paths.map((path) => ({ path, digest: D, size: 1 })),
});
/** The entry skills/list serves for a local record. */
const indexed = (r: SkillRecord) => indexSkills([r], [], undefined, (g) => g).candidates;
const served = (r: SkillRecord) => describeSkill(indexed(r)[0]!);
/** The entry a record stored before these rules would make, were it served (the index leaves it out). */
const asStored = (r: SkillRecord) => ({ ...served(record({})), frontmatter: r.frontmatter });

describe('a local skill clients would refuse', () => {
  const refused: [string, Record<string, unknown>][] = [
    ['frontmatter.metadata.version', { metadata: { version: 1 } }],
    ['frontmatter.metadata', { metadata: ['a'] }],
    ['frontmatter.metadata', { metadata: null }],
    ['frontmatter.compatibility', { compatibility: '' }],
    ['frontmatter.compatibility', { compatibility: 'x'.repeat(501) }],
    ['frontmatter.description', { description: CLEF.repeat(1025) }],
  ];
  it.each(refused)('is refused at publish, naming %s', async (field, fm) => {
    const r = record(fm);
    expect(validateSkill(r).map((i) => i.path)).toEqual([field]);
    expect(await sdkRefuses([asStored(r)])).toEqual(['skill://notes/SKILL.md']);
    expect(indexed(r)).toEqual([]);
  });

  it('passes when clients accept it; the description counts characters, not UTF-16 units', async () => {
    const ok = [
      record({ metadata: { version: '1', author: 'me' }, compatibility: 'x'.repeat(500), license: 'MIT' }),
      record({ description: CLEF.repeat(1024) }),
    ];
    for (const r of ok) {
      expect(validateSkill(r)).toEqual([]);
      expect(await sdkRefuses([served(r)])).toEqual([]);
    }
  });
});

describe('an upstream entry clients would refuse', () => {
  const file = (uri: string) => ({ uri, digest: D, size: 1 });
  const entry = (fm: Record<string, unknown> = {}, more: string[] = [], at = 'review') => ({
    uri: `skill://${at}/SKILL.md`,
    frontmatter: { name: at.split('/').at(-1), description: 'Reviews.', ...fm },
    resources: [`skill://${at}/SKILL.md`, ...more].map(file),
  });
  /** The entry as it would be served under the mount, had it been kept. */
  const mounted = (e: ReturnType<typeof entry>) => ({
    uri: clientUri('m', e.uri),
    frontmatter: e.frontmatter,
    resources: e.resources.map((r) => ({ ...r, uri: clientUri('m', r.uri) })),
  });
  const refused: [string, ReturnType<typeof entry>][] = [
    ['metadata that is not a string map', entry({ metadata: { version: 1 } })],
    ['compatibility over 500 characters', entry({ compatibility: 'x'.repeat(501) })],
    ['a description over 1,024 characters', entry({ description: CLEF.repeat(1025) })],
    ['a name that is not the last segment', entry({ name: 'other' })],
    ['a folder that is not a skill name', entry({}, [], 'Review')],
    ['percent-encoded dot segments', entry({}, ['skill://review/%2e%2e/%2E%2e/x.md'])],
    ['an encoded slash', entry({}, ['skill://review/a%2Fb.md'])],
    ['an encoded NUL', entry({}, ['skill://review/a%00.md'])],
    ['one file in two spellings', entry({}, ['skill://review/aA.md', 'skill://review/a%41.md'])],
  ];
  it.each(refused)('is skipped: %s', async (_, e) => {
    expect(typeof mapSkill('m', 'u', e)).toBe('string');
    expect(await sdkRefuses([mounted(e)])).toEqual([mounted(e).uri]);
  });

  it('is skipped too for segments that could leave the folder upstream, or that clients read differently', () => {
    const stricter = [
      entry({}, ['skill://review/a%5c..%5cx.md']),
      entry({}, ['skill://review/a%0ab.md']),
      entry({}, ['skill://review/a%zz.md']),
      entry({}, [], 'x/%2e%2e/review'),
      entry({ ['__proto__']: 'x' }),
    ];
    for (const e of stricter) expect(typeof mapSkill('m', 'u', e), e.resources.at(-1)!.uri).toBe('string');
  });

  it('what is kept of a listing passes the SDK', async () => {
    const good = [
      entry({ metadata: { version: '1' }, description: CLEF.repeat(1024) }, ['skill://review/a%20b.md']),
      entry({}, ['skill://acme/lint/refs/A.md'], 'acme/lint'),
    ];
    const kept = mapSkills({ id: 'm', prefix: '' }, [...good, ...refused.map(([, e]) => e)]);
    expect(kept.map((s) => s.uri)).toEqual(['skill://m/review/SKILL.md', 'skill://m/acme/lint/SKILL.md']);
    const entries = kept.map(({ uri, frontmatter, resources }) => ({ uri, frontmatter, resources }));
    expect(await sdkRefuses(entries)).toEqual([]);
  });
});

describe('paths no host can write side by side', () => {
  const issues = (paths: string[]) => validateSkill(record({}, ['SKILL.md', ...paths]));
  it('a file that another path needs as its folder, in any case', () => {
    expect(issues(['SKILL.md/x'])).toEqual([
      {
        path: 'files[1].path',
        message: '"SKILL.md/x" needs the folder "SKILL.md", but "SKILL.md" (files[0]) is a file',
      },
    ]);
    expect(issues(['docs', 'Docs/a.md'])).toEqual([
      { path: 'files[2].path', message: '"Docs/a.md" needs the folder "Docs", but "docs" (files[1]) is a file' },
    ]);
  });
  it('two names equal but for case or Unicode normal form, each clash naming both files', () => {
    expect(issues(['Ref.md', 'ref.md', 'caf\u00e9.md', 'cafe\u0301.md', 'skill.md'])).toEqual([
      { path: 'files[2].path', message: expect.stringContaining('"ref.md" and "Ref.md" (files[1])') },
      { path: 'files[4].path', message: expect.stringContaining('"cafe\u0301.md" and "caf\u00e9.md" (files[3])') },
      { path: 'files[5].path', message: expect.stringContaining('"skill.md" and "SKILL.md" (files[0])') },
    ]);
  });
  it('distinct names, and a file beside a folder of another name, are fine', () => {
    expect(issues(['a/b.md', 'a/c.md', 'A.md', 'ab/x.md'])).toEqual([]);
  });
  it('a path with a control character or a bidirectional formatting mark is refused: it reads as another', () => {
    const bad = [
      'a\u0007.md',
      'a\u007f.md',
      'a\u0085.md',
      'x\u202egpj.md',
      'a\u2066b.md',
      'a\u200fb.md',
      'a\u061cb.md',
    ];
    const refused = { message: 'must use / and no control or bidirectional formatting characters' };
    expect(issues(bad)).toEqual(bad.map((_, i) => ({ path: `files[${i + 1}].path`, ...refused })));
    expect(issues(['caf\u00e9 \u00a0notes.md', '\u05d0\u05d1.md'])).toEqual([]);
  });
  it('a path some file system cannot hold is refused: reserved characters, a trailing dot or space, device names', () => {
    const bad = ['a:b.md', 'what?.md', 'x/y*.md', 'notes.', 'dir /a.md', 'CON', 'nul.txt', 'docs/Com1.md', 'lpt9/a.md'];
    const refused = {
      message:
        'must be a name every file system can hold: no <>:"|?* characters, no segment ending in "." or a space, no device name (CON, NUL, COM1, …)',
    };
    expect(issues(bad)).toEqual(bad.map((_, i) => ({ path: `files[${i + 1}].path`, ...refused })));
    expect(issues(['console.md', 'nully/a.md', 'com10.md', 'a.b.md', 'aux-notes.md'])).toEqual([]);
  });
  it('a path that is not well-formed Unicode is refused: it could be no URI', () => {
    expect(issues(['a\ud800.md'])).toEqual([{ path: 'files[1].path', message: 'must be well-formed Unicode' }]);
  });
});
