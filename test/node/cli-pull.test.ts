/**
 * `promptgate pull` into a directory that is not new (cli/pull-target.ts), against a real local
 * stand-in for the admin API: a second pull refuses without --replace, and with it leaves exactly
 * what is published (so the next push brings nothing deleted back), never touching a file the
 * user wrote.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AdminClient } from '../../cli/api.js';
import { loadPromptDir } from '../../cli/fs-source.js';
import { pullCommand } from '../../cli/pull.js';
import { PullTarget } from '../../cli/pull-target.js';
import { loadSkills } from '../../cli/skills.js';

const prompt = (name: string, text: string) => ({
  name,
  messages: [{ role: 'user', content: { type: 'text', text } }],
  _version: 1,
  _updatedAt: '2026-01-01T00:00:00Z',
});
const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;
const skillMd = '---\nname: notes\ndescription: Writes notes.\n---\n\n# notes\n';
const file = (path: string, text: string) => ({
  path,
  digest: sha(text),
  size: text.length,
  mimeType: 'text/markdown',
});

/** What the stand-in gateway publishes; each test changes it between pulls. */
let catalog: { prompts: unknown[]; skills: unknown[] };
/** A gateway failing part-way through a pull. */
let filesFail = false;
/** Runs as the gateway is asked for a skill file: what the user does while a pull is under way. */
let onFile: (() => void) | undefined;
const bytes = new Map([skillMd, 'style guide', 'a,b\n1,2\n'].map((t) => [sha(t), t]));

const server = createServer((req, res) => {
  const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (req.url === '/admin/prompts') return json({ prompts: catalog.prompts, generation: 1 });
  if (req.url === '/admin/skills') return json({ skills: catalog.skills, generation: 1 });
  const digest = req.url!.replace('/admin/skills/files/', '');
  onFile?.();
  if (bytes.has(digest) && !filesFail) return res.end(bytes.get(digest));
  res.writeHead(404).end();
});

let api: AdminClient;
beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = new AdminClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'test-token');
});
afterAll(() => server.close());

let dir: string;
beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'pg-pull-')), 'catalog');
  filesFail = false;
  catalog = {
    prompts: [prompt('greet', 'hello'), prompt('review', 'look at it')],
    skills: [
      {
        name: 'notes',
        frontmatter: { name: 'notes', description: 'Writes notes.' },
        files: [file('SKILL.md', skillMd), file('references/STYLE.md', 'style guide')],
        groups: ['team'],
        _version: 1,
        _updatedAt: '2026-01-01T00:00:00Z',
      },
    ],
  };
});
afterEach(() => rmSync(join(dir, '..'), { recursive: true, force: true }));

const pull = (replace?: boolean) =>
  pullCommand(
    () => api,
    dir,
    { replace },
    () => {},
  );

/** Every file under the directory (dotfiles too), with its text. */
function snapshot(at = dir): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }))
      if (e.isDirectory()) walk(join(d, e.name));
      else out[relative(at, join(d, e.name))] = readFileSync(join(d, e.name), 'utf8');
  };
  walk(at);
  return out;
}

/** The catalog changed since the first pull: a prompt deleted, one now JSON, a skill file and its groups gone. */
function change(): void {
  catalog.prompts = [prompt('review', ' look at it, padded')];
  const notes = catalog.skills[0] as { files: unknown[]; groups?: string[] };
  notes.files = notes.files.slice(0, 1);
  delete notes.groups;
}

describe('pull into a directory an earlier pull wrote', () => {
  it('refuses without --replace, and changes nothing', async () => {
    await pull();
    const before = snapshot();
    change();
    await expect(pull()).rejects.toThrow(`${dir} holds an earlier pull: pass --replace to bring it up to date`);
    expect(snapshot()).toEqual(before);
  });

  it('with --replace leaves exactly what is published, and a push of it would bring nothing back', async () => {
    await pull();
    expect(Object.keys(snapshot()).sort()).toEqual([
      '.promptgate-pull.json',
      'greet.md',
      'review.md',
      'skills/notes/.promptgate.yaml',
      'skills/notes/SKILL.md',
      'skills/notes/references/STYLE.md',
    ]);
    change();
    await pull(true);
    expect(Object.keys(snapshot()).sort()).toEqual(['.promptgate-pull.json', 'review.json', 'skills/notes/SKILL.md']);
    expect(existsSync(join(dir, 'skills/notes/references'))).toBe(false);
    const prompts = loadPromptDir(dir);
    expect(prompts.issues).toEqual([]);
    expect(prompts.records.map((r) => r.name)).toEqual(['review']);
    const skills = loadSkills(dir);
    expect(skills.records.map((s) => [s.name, s.groups, s.files.map((f) => f.path)])).toEqual([
      ['notes', undefined, ['SKILL.md']],
    ]);
  });

  it('a pull that failed part-way leaves a directory the next --replace still owns whole', async () => {
    await pull();
    change();
    filesFail = true;
    await expect(pull(true)).rejects.toThrow('failed (HTTP 404)');
    expect(existsSync(join(dir, 'review.json'))).toBe(true); // written before the failure
    filesFail = false;
    await pull(true);
    expect(Object.keys(snapshot()).sort()).toEqual(['.promptgate-pull.json', 'review.json', 'skills/notes/SKILL.md']);
  });

  it('with --replace refuses when the user added or changed a file, naming them, and changes nothing', async () => {
    await pull();
    writeFileSync(join(dir, 'draft.md'), '---\nname: draft\n---\n\n## user\n\nmine');
    writeFileSync(join(dir, 'greet.md'), readFileSync(join(dir, 'greet.md'), 'utf8').replace('hello', 'hi there'));
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, '.git/HEAD'), 'ref: refs/heads/main\n');
    const before = snapshot();
    change();
    await expect(pull(true)).rejects.toThrow(
      `${dir} holds files the last pull did not write, or that changed since and are not what the gateway serves; ` +
        'nothing was written, so they are kept. Push them or move them out and pull again, or pull into a new ' +
        'directory:\n  draft.md\n  greet.md',
    );
    expect(snapshot()).toEqual(before);
    // What push never reads is not the pull's business: with only that beside the pull, --replace goes ahead.
    rmSync(join(dir, 'draft.md'));
    rmSync(join(dir, 'greet.md'));
    await pull(true);
    expect(readFileSync(join(dir, '.git/HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });
});

describe('pull --replace after an edit', () => {
  it('takes a file edited and then pushed as pulled: it holds what the gateway serves', async () => {
    await pull();
    const edited = readFileSync(join(dir, 'greet.md'), 'utf8').replace('hello', 'hi there');
    writeFileSync(join(dir, 'greet.md'), edited);
    // Pushed: the gateway now serves the edited text.
    catalog.prompts = [prompt('greet', 'hi there'), prompt('review', 'look at it')];
    await pull(true);
    expect(readFileSync(join(dir, 'greet.md'), 'utf8')).toBe(edited);
    // And it is the pull's again: the next --replace goes ahead.
    await pull(true);
  });

  it('keeps a file edited while the pull runs, and stops there', async () => {
    await pull();
    const style = join(dir, 'skills/notes/references/STYLE.md');
    onFile = () => {
      onFile = undefined;
      writeFileSync(style, 'my own style guide');
    };
    try {
      await expect(pull(true)).rejects.toThrow(`${style} changed while pulling; it is kept`);
    } finally {
      onFile = undefined;
    }
    expect(readFileSync(style, 'utf8')).toBe('my own style guide');
  });
});

describe('pull into a directory it did not write', () => {
  it('refuses one holding files, --replace or not; an empty one is fine', async () => {
    mkdirSync(join(dir, 'sub'), { recursive: true });
    writeFileSync(join(dir, 'sub/mine.md'), 'my own notes');
    for (const replace of [false, true])
      await expect(pull(replace)).rejects.toThrow(
        `${dir} is not empty, and pull writes only into an empty or new directory`,
      );
    expect(snapshot()).toEqual({ 'sub/mine.md': 'my own notes' });
    rmSync(join(dir, 'sub'), { recursive: true });
    await pull();
    expect(Object.keys(snapshot())).toContain('greet.md');
  });
});

describe('what a pulled skill holds besides its files', () => {
  it('its media types: loaded back for the next push, its record is the one published', async () => {
    const published = {
      name: 'notes',
      frontmatter: { name: 'notes', description: 'Writes notes.' },
      // One as its extension says, one not (published through the admin API), one as another text type.
      files: [
        file('SKILL.md', skillMd),
        { ...file('data/table.bin', 'a,b\n1,2\n'), mimeType: 'text/csv' },
        { ...file('references/STYLE.md', 'style guide'), mimeType: 'text/x-style' },
      ],
      groups: ['team'],
    };
    catalog.skills = [{ ...published, _version: 1, _updatedAt: '2026-01-01T00:00:00Z' }];
    await pull();
    expect(snapshot()['skills/notes/.promptgate.yaml']).toBe(
      'groups:\n  - team\nmimeTypes:\n  data/table.bin: text/csv\n  references/STYLE.md: text/x-style\n',
    );
    const again = loadSkills(dir);
    expect(again.issues).toEqual([]);
    expect(again.records).toEqual([published]);
  });

  it('no sidecar when the groups and every media type are what push gives by itself', async () => {
    const notes = catalog.skills[0] as { groups?: string[] };
    delete notes.groups;
    await pull();
    expect(Object.keys(snapshot())).not.toContain('skills/notes/.promptgate.yaml');
  });
});

describe('a listing whose names or paths would leave the directory', () => {
  /** Nothing was written: not the directory, nor anything beside it. */
  const nothingWritten = () => {
    expect(existsSync(dir)).toBe(false);
    expect(readdirSync(join(dir, '..'))).toEqual([]);
  };

  it('a prompt named "../x" is refused, naming it, before anything is written', async () => {
    catalog.prompts = [prompt('greet', 'hello'), prompt('../x', 'escaped')];
    await expect(pull()).rejects.toThrow('the gateway listed a prompt named "../x", which is not a prompt name');
    nothingWritten();
  });

  it.each(['../../y', '../../../y', '.git/config', 'a//b'])('a skill file path "%s" is refused', async (path) => {
    const notes = catalog.skills[0] as { files: unknown[] };
    notes.files = [...notes.files, file(path, 'style guide')];
    await expect(pull()).rejects.toThrow(`the gateway listed a file "${path}" in skill notes, whose path must be`);
    nothingWritten();
  });

  it('a skill named "../notes" is refused', async () => {
    (catalog.skills[0] as { name: string }).name = '../notes';
    await expect(pull()).rejects.toThrow('the gateway listed a skill named "../notes", which is not a skill name');
    nothingWritten();
  });

  it('skill files that cannot all exist on one disk are named, before anything is written', async () => {
    const notes = catalog.skills[0] as { files: unknown[] };
    notes.files = [
      ...notes.files,
      file('ref', 'a file'),
      file('ref/deep.md', 'under it'),
      file('Guide.md', 'one'),
      file('guide.md', 'two'),
    ];
    const refused = pull();
    await expect(refused).rejects.toThrow(
      "the gateway's catalog holds names that cannot all be files in one directory",
    );
    await expect(refused).rejects.toThrow(
      'skills/notes/ref is a file, and skills/notes/ref/deep.md needs it to be a folder',
    );
    await expect(refused).rejects.toThrow(
      'skills/notes/Guide.md and skills/notes/guide.md (one file on macOS and Windows)',
    );
    nothingWritten();
  });

  it('whatever lets one through, the plan itself is checked: nothing outside, nothing hidden', () => {
    for (const path of ['../x.md', 'skills/notes/../../../y', '/etc/x', 'skills/a/.git/config']) {
      expect(() => PullTarget.open(dir).begin([{ path, digest: sha('x') }])).toThrow(
        `the gateway's catalog would be written outside ${dir}, or into hidden files; nothing was written:\n  ${path}`,
      );
      nothingWritten();
    }
  });
});
