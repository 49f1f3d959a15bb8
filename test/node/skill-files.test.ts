/**
 * Skill folders (docs/skills.md): the shipped example loads; a folder with SKILL.md is a skill
 * and never prompts; broken skills are refused with the folder, file and field named.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';
import { validateCommand } from '../../cli/prompt-commands.js';
import { loadSkills } from '../../cli/skills.js';
import { validateSkill } from '../../src/catalog/skills/validate.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'skills-'));
  dirs.push(dir);
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), text);
  }
  return dir;
}

const md = (name: string, description = 'Does a thing well.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

describe('example skills', () => {
  it('load without issues, every file with the digest and size of its bytes', () => {
    const { records, issues } = loadSkills('prompts');
    expect(issues).toEqual([]);
    const notes = records.find((r) => r.name === 'release-notes')!;
    expect(notes.frontmatter).toMatchObject({ name: 'release-notes', license: 'Apache-2.0' });
    expect(notes.files.map((f) => f.path)).toEqual(['SKILL.md', 'references/STYLE.md', 'templates/release-notes.md']);
    for (const f of notes.files) {
      const bytes = readFileSync(join('prompts/skills/release-notes', f.path));
      expect(f.digest).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
      expect(f.size).toBe(bytes.byteLength);
    }
  });
  it('are never loaded as prompts', () => {
    const { records, issues } = loadPromptDir('prompts');
    expect(issues).toEqual([]);
    expect(records.some((r) => /release|STYLE|SKILL/i.test(r.name))).toBe(false);
  });
});

describe('skill folders', () => {
  it('a folder with SKILL.md is a skill wherever it is; its markdown is not a prompt', () => {
    const dir = tree({
      'team/deep/pdf-forms/SKILL.md': md('pdf-forms'),
      'team/deep/pdf-forms/references/FORMS.md': '---\nname: not_a_prompt\n---\n## user\nx',
      'a_prompt.md': '---\nname: a_prompt\n---\n\n## user\n\nhello',
    });
    const skills = loadSkills(dir);
    expect(skills.issues).toEqual([]);
    expect(skills.records.map((r) => [r.name, r.files.map((f) => f.path)])).toEqual([
      ['pdf-forms', ['SKILL.md', 'references/FORMS.md']],
    ]);
    expect(skills.sources.get('pdf-forms')).toBe('team/deep/pdf-forms');
    expect(loadPromptDir(dir).records.map((r) => r.name)).toEqual(['a_prompt']);
  });

  it('refuses a name that is not the folder, a bad name, no description, no front matter, symlinks and twins', () => {
    const dir = tree({
      'one/SKILL.md': md('another-name'),
      'Bad_Folder/SKILL.md': md('Bad_Folder'),
      'quiet/SKILL.md': '---\nname: quiet\n---\n',
      'bare/SKILL.md': '# no front matter',
      'linked/SKILL.md': md('linked'),
      'x/twin/SKILL.md': md('twin'),
      'y/twin/SKILL.md': md('twin'),
    });
    symlinkSync('/etc/hostname', join(dir, 'linked/leak.txt'));
    const { records, issues } = loadSkills(dir);
    const text = issues.map((i) => `${i.path}: ${i.message}`);
    expect(text).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^one: frontmatter\.name: must equal the skill's folder name "one"/),
        expect.stringMatching(/^Bad_Folder: name: must be a skill name/),
        expect.stringMatching(/^quiet: frontmatter\.description: required/),
        expect.stringMatching(/^bare\/SKILL\.md: SKILL\.md needs YAML front matter/),
        'linked/leak.txt: symlinks are not published',
        expect.stringMatching(/^y\/twin: duplicate skill "twin" \(also in x\/twin\)/),
      ]),
    );
    expect(records.map((r) => r.name)).toEqual(['twin']);
  });

  it('refuses front matter clients refuse: metadata maps strings to strings, as YAML types them', () => {
    const fm = (name: string, extra: string) => `---\nname: ${name}\ndescription: Notes.\n${extra}---\n\n# ${name}\n`;
    const dir = tree({
      'numbered/SKILL.md': fm('numbered', 'metadata:\n  version: 1\n'),
      'quoted/SKILL.md': fm('quoted', 'metadata:\n  version: "1"\n'),
    });
    const { records, issues } = loadSkills(dir);
    expect(issues).toEqual([
      { path: 'numbered: frontmatter.metadata.version', message: 'must be a string, not 1 (quote it in SKILL.md)' },
    ]);
    expect(records.map((r) => r.name)).toEqual(['quoted']);
  });
});

describe('symlinked folders', () => {
  // Skipped quietly, a linked skill would be missing from the push, and `push --prune` would delete it.
  it('one that is or holds a skill is refused by name; one holding only prompts is no issue', () => {
    const outside = tree({
      'linked-skill/SKILL.md': md('linked-skill'),
      'shelf/deep/pdf-forms/SKILL.md': md('pdf-forms'),
      'just-prompts/other.md': '---\nname: other\n---\n\n## user\n\nhi',
    });
    symlinkSync(join(outside, 'just-prompts'), join(outside, 'just-prompts/again')); // a loop ends
    const dir = tree({ 'kept/SKILL.md': md('kept') });
    symlinkSync(join(outside, 'linked-skill'), join(dir, 'linked-skill'));
    symlinkSync(join(outside, 'shelf'), join(dir, 'shelf'));
    symlinkSync(join(outside, 'just-prompts'), join(dir, 'more'));
    symlinkSync(join(outside, 'nowhere'), join(dir, 'dangling'));
    const { records, issues } = loadSkills(dir);
    expect(records.map((r) => r.name)).toEqual(['kept']);
    const why = 'a symlink to a folder that holds skills: symlinks are not published (put the folder itself here)';
    expect(issues.sort((a, b) => (a.path < b.path ? -1 : 1))).toEqual([
      { path: 'linked-skill', message: why },
      { path: 'shelf', message: why },
    ]);
  });

  it('stops validate with the path named', () => {
    const outside = tree({ 'linked-skill/SKILL.md': md('linked-skill') });
    const dir = tree({ 'team/kept/SKILL.md': md('kept'), 'a.md': '---\nname: a\n---\n\n## user\n\nhi' });
    symlinkSync(join(outside, 'linked-skill'), join(dir, 'team/linked-skill'));
    expect(() => validateCommand(dir, () => {})).toThrow(
      `1 problem(s) in skills under ${dir}/, nothing published:\n  ${dir}/team/linked-skill: a symlink to a folder that holds skills`,
    );
  });
});

describe('symlinks among prompts', () => {
  it('are followed, each folder once: a link back up ends rather than loops', () => {
    const outside = tree({ 'shared/other.md': '---\nname: other\n---\n\n## user\n\nhi' });
    symlinkSync(join(outside, 'shared'), join(outside, 'shared/again'));
    const dir = tree({ 'a.md': '---\nname: a\n---\n\n## user\n\nhi' });
    symlinkSync(join(outside, 'shared'), join(dir, 'shared'));
    const { records, issues } = loadPromptDir(dir);
    expect(issues).toEqual([]);
    expect(records.map((r) => r.name).sort()).toEqual(['a', 'other']);
  });

  it('a link to nothing is an error naming it', () => {
    const dir = tree({ 'a.md': '---\nname: a\n---\n\n## user\n\nhi' });
    symlinkSync(join(dir, 'nowhere'), join(dir, 'dangling.md'));
    expect(() => loadPromptDir(dir)).toThrow(
      `${join(dir, 'dangling.md')}: cannot be read (ENOENT; a symlink to nothing?)`,
    );
  });
});

describe('who sees a skill', () => {
  it("groups come from the folder's .promptgate.yaml, which is not one of its files; bad settings are named", () => {
    const dir = tree({
      'team-only/SKILL.md': md('team-only'),
      'team-only/.promptgate.yaml': 'groups: [platform, sre]\n',
      'odd/SKILL.md': md('odd'),
      'odd/.promptgate.yaml': 'groups: []\nowner: me\n',
    });
    const { records, issues } = loadSkills(dir);
    expect(records.map((r) => [r.name, r.groups, r.files.map((f) => f.path)])).toEqual([
      ['team-only', ['platform', 'sre'], ['SKILL.md']],
    ]);
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['odd/.promptgate.yaml: owner', 'odd: groups']));
  });
});

describe('media types', () => {
  it('come from the extension unless .promptgate.yaml maps the path; a bad mapping is named', () => {
    const dir = tree({
      'typed/SKILL.md': md('typed'),
      'typed/data/table.bin': 'a,b\n1,2\n',
      'typed/notes.md': '# notes\n',
      'typed/.promptgate.yaml': 'mimeTypes:\n  data/table.bin: text/csv\n',
      'ghost/SKILL.md': md('ghost'),
      'ghost/.promptgate.yaml': 'mimeTypes:\n  missing.txt: text/plain\n',
      'wrong/SKILL.md': md('wrong'),
      'wrong/.promptgate.yaml': 'mimeTypes: [text/plain]\n',
    });
    const { records, issues } = loadSkills(dir);
    expect(records.map((r) => [r.name, r.files.map((f) => [f.path, f.mimeType])])).toEqual([
      [
        'typed',
        [
          ['SKILL.md', 'text/markdown'],
          ['data/table.bin', 'text/csv'],
          ['notes.md', 'text/markdown'],
        ],
      ],
    ]);
    expect(issues).toEqual([
      { path: 'ghost/.promptgate.yaml: mimeTypes: missing.txt', message: 'no such file in the skill' },
      { path: 'wrong/.promptgate.yaml: mimeTypes', message: 'must map file paths to media types' },
    ]);
  });
});

describe('bytes that are not UTF-8', () => {
  it('in SKILL.md or .promptgate.yaml are an issue naming the file and line', () => {
    const dir = tree({ 'menu/SKILL.md': '', 'plain/SKILL.md': md('plain'), 'plain/.promptgate.yaml': '' });
    writeFileSync(join(dir, 'menu/SKILL.md'), Buffer.from(md('menu', 'Orders a café.'), 'latin1'));
    writeFileSync(join(dir, 'plain/.promptgate.yaml'), Buffer.from('groups: [équipe]\n', 'latin1'));
    const { records, issues } = loadSkills(dir);
    expect(issues).toEqual([
      { path: 'menu/SKILL.md:3', message: expect.stringContaining('is not UTF-8 text') },
      { path: 'plain/.promptgate.yaml:1', message: expect.stringContaining('is not UTF-8 text') },
    ]);
    expect(records).toEqual([]);
  });

  it('in a skill file that is not its SKILL.md are published as they are', () => {
    const dir = tree({ 'plain/SKILL.md': md('plain') });
    writeFileSync(join(dir, 'plain/logo.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xe9, 0xff]));
    const { records, issues } = loadSkills(dir);
    expect(issues).toEqual([]);
    expect(records[0]!.files.map((f) => [f.path, f.size])).toEqual([
      ['SKILL.md', md('plain').length],
      ['logo.png', 6],
    ]);
  });
});

describe('a YAML alias inside itself (`&x [*x]`)', () => {
  const endless = expect.stringContaining('nests deeper than 32 levels in the skill record');
  it('in SKILL.md front matter or .promptgate.yaml is an issue naming the file, not a throw', () => {
    const dir = tree({
      'looped/SKILL.md': '---\nname: looped\ndescription: d\nfoo: &x [*x]\n---\n',
      'grouped/SKILL.md': md('grouped'),
      'grouped/.promptgate.yaml': 'groups: &x [*x]\n',
    });
    const { records, issues } = loadSkills(dir);
    expect(issues).toEqual([
      { path: 'grouped/.promptgate.yaml', message: endless },
      { path: 'looped/SKILL.md', message: expect.stringMatching(/^front matter: foo\[0\]\[0\]/) },
    ]);
    expect(issues[1]!.message).toEqual(endless);
    expect(records).toEqual([]);
  });

  it('in a record is an issue at its path from the validator, not a throw', () => {
    const foo: unknown[] = [];
    foo.push(foo);
    const files = [{ path: 'SKILL.md', digest: `sha256:${'a'.repeat(64)}`, size: 1 }];
    const issues = validateSkill({ name: 'looped', frontmatter: { name: 'looped', description: 'd', foo }, files });
    expect(issues).toEqual([
      {
        path: expect.stringMatching(/^frontmatter\.foo\[0\]\[0\]/),
        message: expect.stringContaining('nests deeper than 32 levels'),
      },
    ]);
  });
});
