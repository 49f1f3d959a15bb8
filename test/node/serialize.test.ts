/**
 * pull writes files that load back to the identical records.
 */
import { describe, expect, it } from 'vitest';
import { loadPromptFiles } from '../../cli/load.js';
import { fileStems, serializePrompt } from '../../cli/serialize.js';
import type { PromptRecord } from '../../src/catalog/types.js';
import { loadPromptDir } from '../../cli/fs-source.js';
import { changedPaths } from '../../cli/prompt-commands.js';
import { validatePrompt } from '../../src/catalog/validate.js';

function roundTrip(records: PromptRecord[], stems?: Map<string, string>): { records: PromptRecord[]; paths: string[] } {
  const files = new Map<string, string>();
  const assets = new Map<string, Uint8Array>();
  for (const r of records) {
    const f = serializePrompt(r, stems?.get(r.name));
    files.set(f.path, f.text);
    for (const a of f.assets) assets.set(a.path, a.bytes);
  }
  const loaded = loadPromptFiles({ files, readAsset: (p) => assets.get(p) });
  expect(loaded.issues).toEqual([]);
  return { records: loaded.records, paths: [...files.keys()] };
}

describe('serializePrompt', () => {
  it('round-trips every example exactly, as Markdown with image assets', () => {
    const { records } = loadPromptDir('prompts');
    const back = roundTrip(records);
    expect(back.records).toEqual(records);
    expect(back.paths.every((p) => p.endsWith('.md'))).toBe(true);
  });
  it('falls back to JSON when Markdown would not be exact', () => {
    const tricky: PromptRecord[] = [
      { name: 'heading', messages: [{ role: 'user', content: { type: 'text', text: 'before\n## assistant\nafter' } }] },
      { name: 'spaces', messages: [{ role: 'user', content: { type: 'text', text: '  padded\n' } }] },
    ];
    const back = roundTrip(tricky);
    expect(back.paths).toEqual(['heading.json', 'spaces.json']);
    expect(back.records).toEqual(tricky);
  });
  it('falls back to JSON for what Markdown has no place for, and for a name a directory read skips', () => {
    const text = (t: string) => ({ type: 'text' as const, text: t });
    const tricky = [
      { name: 'README', messages: [{ role: 'user', content: text('hello') }] },
      {
        name: 'annotated',
        messages: [{ role: 'user', content: { ...text('hi'), annotations: { audience: ['user'] } } }],
      },
      { name: 'meta_block', messages: [{ role: 'user', content: { ...text('hi'), _meta: { 'x.example/k': 1 } } }] },
      {
        name: 'resource_meta',
        messages: [
          {
            role: 'user',
            content: { type: 'resource', resource: { uri: 'file:///a', text: 'a' }, annotations: { priority: 1 } },
          },
        ],
      },
    ] as unknown as PromptRecord[];
    const back = roundTrip(tricky);
    expect(back.paths).toEqual(['README.json', 'annotated.json', 'meta_block.json', 'resource_meta.json']);
    expect(back.records).toEqual(tricky);
  });
});

describe('changedPaths', () => {
  it('names that share a file on a case-insensitive file system, or are Windows device names, get their own files', () => {
    const image = { type: 'image', data: 'aGk=', mimeType: 'image/png' } as const;
    const records: PromptRecord[] = ['Review', 'review', 'REVIEW', 'con', 'con.v2', 'Con.V2', 'plain'].map((name) => ({
      name,
      messages: [
        { role: 'user', content: { type: 'text', text: `${name} text` } },
        { role: 'user', content: image },
      ],
    }));
    const stems = fileStems(records.map((r) => r.name));
    const back = roundTrip(records, stems);
    const lower = back.paths.map((p) => p.toLowerCase());
    expect(new Set(lower).size).toBe(records.length);
    expect(back.paths.sort()).toEqual([
      'Con~2.V2.md',
      'REVIEW.md',
      'Review~2.md',
      'con~2.md',
      'con~3.v2.md',
      'plain.md',
      'review~3.md',
    ]);
    // Every asset path is distinct ignoring case too, and each record loads back as it was.
    const assets = records.flatMap((r) =>
      serializePrompt(r, stems.get(r.name)).assets.map((a) => a.path.toLowerCase()),
    );
    expect(new Set(assets).size).toBe(records.length);
    expect(back.records.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      [...records].sort((a, b) => a.name.localeCompare(b.name)),
    );
  });
  it('names the fields that differ', () => {
    expect(changedPaths({ a: 1, b: { c: [1, 2] } }, { a: 1, b: { c: [1, 3] }, d: 1 })).toEqual(['b.c[1]', 'd']);
    expect(changedPaths({ a: 1 }, { a: 1 })).toEqual([]);
  });
});

describe('serializePrompt round trips, exactly', () => {
  /** Loaded back, the very records: no key gained or lost, not even an undefined one. */
  const exact = (records: PromptRecord[]) => {
    const back = roundTrip(records);
    // The loader reads files in path order.
    const byName = (rs: PromptRecord[]) => [...rs].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(JSON.parse(JSON.stringify(byName(back.records)))).toStrictEqual(byName(records));
    return back.paths;
  };
  const text = (t: string) => ({ role: 'user' as const, content: { type: 'text' as const, text: t } });
  const resource = (t: string) => ({
    role: 'user' as const,
    content: { type: 'resource' as const, resource: { uri: 'file:///x', mimeType: 'text/plain', text: t } },
  });

  it('keeps the trailing blank space of the last value, and stays Markdown where it can', () => {
    const described = ['a\nb  ', 'a\nb\t', 'x\n\n', 'a\n\n b  '].map((d, i) => ({
      name: `d${i}`,
      description: d,
      messages: [text('hi')],
    }));
    const records: PromptRecord[] = [...described, { name: 'r', messages: [resource('a\nb\n\n')] }];
    expect(exact(records)).toEqual(['d0.md', 'd1.md', 'd2.md', 'd3.md', 'r.md']);
  });

  it('keeps a value ending in, or only, a character JavaScript trims (U+2028, NBSP, U+FEFF)', () => {
    const records: PromptRecord[] = ['\u2028', '\u00a0', '\ufeff'].flatMap((c, i) => [
      { name: `end${i}`, description: `a${c}`, messages: [text('hi')] },
      { name: `only${i}`, description: c, messages: [resource(`b${c}`)] },
    ]);
    // exact() compares every record read back; each was written to a file of its own.
    expect(exact(records)).toHaveLength(records.length);
  });

  it('round-trips a few hundred generated records (fixed seed)', () => {
    // Mostly what Markdown and YAML give meaning to (blank space, line breaks, syntax), now and
    // then a character only some trimming takes for blank space.
    const common = [
      ' ',
      '  ',
      '\t',
      '\n',
      '\n\n',
      ' \n',
      '#',
      '## user',
      '```',
      '```resource',
      '---',
      ':',
      '- ',
      '"',
      "'",
      '|',
      '>',
      '&',
      '*',
      '%',
      '!',
      '[',
      '{',
      '\\',
      'é',
      '😀',
      'a',
      'b c',
    ];
    const rare = ['\r', '\u2028', '\u0085', '\u00a0', '\ufeff'];
    let seed = 7; // mulberry32: the low bits of a plain LCG repeat too soon to mix the choices
    const rnd = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return Math.floor((((t ^ (t >>> 14)) >>> 0) / 2 ** 32) * n);
    };
    const pick = () => (rnd(10) ? common[rnd(common.length)]! : rare[rnd(rare.length)]!);
    const str = () => Array.from({ length: 1 + rnd(8) }, pick).join('');
    const records: PromptRecord[] = [];
    for (let i = 0; records.length < 400; i++) {
      const r: PromptRecord = { name: `p${i}`, messages: [] };
      if (rnd(2)) r.title = str();
      if (rnd(2)) r.description = str();
      if (rnd(2)) r.arguments = [{ name: 'x', description: str() }];
      for (let m = 0; m <= rnd(3); m++) r.messages.push(rnd(2) ? text(str()) : resource(str()));
      if (!validatePrompt(r).length) records.push(r);
    }
    const paths = exact(records);
    // Most stay Markdown: JSON is the exception, for text Markdown cannot hold.
    expect(paths.filter((p) => p.endsWith('.md')).length).toBeGreaterThan(100);
  });
});
