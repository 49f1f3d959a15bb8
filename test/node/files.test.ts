/**
 * The one prompt-file loader, on the shipped examples and on broken files.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { FileSource } from '../../cli/files.js';
import { loadPromptFiles } from '../../cli/load.js';
import { loadPromptDir, loadValidDir } from '../../cli/fs-source.js';

function source(files: Record<string, string>, assets: Record<string, Uint8Array> = {}): FileSource {
  return { files: new Map(Object.entries(files)), readAsset: (p) => assets[p] };
}

describe('example prompts', () => {
  const { records, issues } = loadPromptDir('prompts');
  it('all load without issues', () => {
    expect(issues).toEqual([]);
    expect(records.length).toBeGreaterThanOrEqual(6);
  });
  it('cover the required kinds: review, commit, explain, multi-turn debug with a resource, summarize, image', () => {
    const byName = new Map(records.map((r) => [r.name, r]));
    for (const n of ['code_review', 'commit_message', 'explain_code', 'debug_session', 'summarize', 'ui_review'])
      expect(byName.has(n), n).toBe(true);
    const debug = byName.get('debug_session')!;
    expect(debug.messages.length).toBeGreaterThanOrEqual(4);
    expect(new Set(debug.messages.map((m) => m.role))).toEqual(new Set(['user', 'assistant']));
    expect(debug.messages.some((m) => m.content.type === 'resource')).toBe(true);
    const image = byName.get('ui_review')!.messages.find((m) => m.content.type === 'image')!.content as {
      data: string;
      mimeType: string;
    };
    expect(image.mimeType).toBe('image/png');
    expect(Buffer.from(image.data, 'base64').subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('error locations', () => {
  it('gives the line of a front-matter field, or of its parent when the field is missing', () => {
    const md =
      '---\nname: review\narguments:\n  - name: code\n  - description: no name\n    required: yes\n---\n\n## user\nhi\n';
    const { issues } = loadPromptFiles(source({ 'prompts/review.md': md }));
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'prompts/review.md:5: arguments[1].name: required',
      'prompts/review.md:6: arguments[1].required: must be true or false',
    ]);
  });
  it('locates fields in YAML files too, and reports YAML syntax errors', () => {
    const { issues } = loadPromptFiles(
      source({
        'x.yaml': 'name: x\nmessages:\n  - role: robot\n    content: {type: text, text: hi}\n',
        'y.yaml': 'name: [unclosed\n',
      }),
    );
    expect(issues[0]).toEqual({ path: 'x.yaml:3: messages[0].role', message: 'must be user or assistant' });
    expect(issues[1]!.path).toBe('y.yaml');
  });
});

describe('loadPromptFiles', () => {
  const fm = (body: string) => `---\nname: p\narguments:\n  - name: a\n    required: true\n---\n${body}`;
  it('splits ## user / ## assistant sections into messages', () => {
    const { records, issues } = loadPromptFiles(
      source({ 'p.md': fm('## user\nHello {{a}}\n\nmore\n\n## assistant\nOK\n') }),
    );
    expect(issues).toEqual([]);
    expect(records[0]!.messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'Hello {{a}}\n\nmore' } },
      { role: 'assistant', content: { type: 'text', text: 'OK' } },
    ]);
  });
  it('reads typed blocks and assets relative to the file', () => {
    const png = new Uint8Array([137, 80, 78, 71]);
    const md = fm(
      '## user\n```image\nfile: ../img/x.png\n```\n\n## user\n```resource\nuri: log://{{a}}\ntext: boom\n```\n',
    );
    const { records, issues } = loadPromptFiles(source({ 'dir/p.md': md }, { 'img/x.png': png }));
    expect(issues).toEqual([]);
    expect(records[0]!.messages[0]!.content).toEqual({ type: 'image', mimeType: 'image/png', data: 'iVBORw==' });
    expect(records[0]!.messages[1]!.content).toEqual({
      type: 'resource',
      resource: { uri: 'log://{{a}}', text: 'boom' },
    });
  });
  it("a resource block's annotations are the block's, and a misspelt field is an issue naming it", () => {
    const md = fm(
      '## user\n```resource\nuri: log://{{a}}\ntext: boom\n_meta: {k: 1}\nannotations:\n  priority: 0.5\n```\n\n## user\n```resource\nuri: log://b\ntext: boom\nanotations: {priority: 1}\n```\n',
    );
    const { records, issues } = loadPromptFiles(source({ 'p.md': md }));
    expect(issues.map((i) => `${i.path}: ${i.message.split('; known')[0]}`)).toEqual([
      'p.md:16: messages[1].content.resource.anotations: is not an embedded resource field',
    ]);
    expect(records).toEqual([]);
    const good = loadPromptFiles(source({ 'p.md': md.replace('anotations', 'annotations') }));
    expect(good.issues).toEqual([]);
    expect(good.records[0]!.messages[0]!.content).toEqual({
      type: 'resource',
      resource: { uri: 'log://{{a}}', text: 'boom', _meta: { k: 1 } },
      annotations: { priority: 0.5 },
    });
    expect(good.records[0]!.messages[1]!.content).toMatchObject({ annotations: { priority: 1 } });
  });
  it("a .json, .yaml or .md file a prompt reads as its content is that prompt's asset, not a prompt of its own", () => {
    const spec = '{"openapi":"3.1.0"}';
    const notes = '# Notes\n\nplain Markdown, no front matter';
    const md = fm(
      '## user\n```resource\nuri: spec://api\nfile: assets/openapi.json\n```\n\n## user\n```resource\nuri: notes://a\nfile: assets/notes.md\n```\n',
    );
    const bytes = (t: string) => new TextEncoder().encode(t);
    // The directory walk reads the assets as files too; the prompt that names them sorts after them.
    const { records, issues } = loadPromptFiles(
      source(
        { 'assets/openapi.json': spec, 'assets/notes.md': notes, 'z.md': md },
        { 'assets/openapi.json': bytes(spec), 'assets/notes.md': bytes(notes) },
      ),
    );
    expect(issues).toEqual([]);
    expect(records.map((r) => r.name)).toEqual(['p']);
    expect(records[0]!.messages.map((m) => (m.content as { resource: { text: string } }).resource.text)).toEqual([
      spec,
      notes,
    ]);
  });
  it('a file that is a whole prompt and also the content of another is an error naming both, not a prompt dropped', () => {
    const inner = fm('## user\nI am a prompt too\n').replace('name: p', 'name: inner');
    const md = fm('## user\n```resource\nuri: notes://a\nfile: inner.md\n```\n');
    const { issues } = loadPromptFiles(
      source({ 'inner.md': inner, 'z.md': md }, { 'inner.md': new TextEncoder().encode(inner) }),
    );
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'inner.md: is a prompt, and also the content of z.md (file:): move one of them',
    ]);
  });
  it('accepts JSON and YAML records', () => {
    const rec = { name: 'j', messages: [{ role: 'user', content: { type: 'text', text: 'x' } }] };
    const { records, issues } = loadPromptFiles(
      source({
        'j.json': JSON.stringify(rec),
        'y.yaml': 'name: y\nmessages:\n  - role: user\n    content: {type: text, text: hi}\n',
      }),
    );
    expect(issues).toEqual([]);
    expect(records.map((r) => r.name)).toEqual(['j', 'y']);
  });
  it('names the file and the field for every problem, and loads the valid rest', () => {
    const { records, issues } = loadPromptFiles(
      source({
        'a.md': fm('## user\nuses {{b}}\n'),
        'b.md': 'no front matter',
        'c.md': fm('intro\n## user\nx'),
        'd.md': fm('## user\n```image\nfile: missing.png\n```\n'),
        'e.md': '---\nname: p\n---\n## user\ndup of nothing\n',
        'f.md': '---\nname: p\n---\n## user\nsame name as e\n',
      }),
    );
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'a.md:7: messages[0].content: placeholder {{b}} names no declared argument',
      'b.md: missing YAML front matter (a block between --- lines at the top)',
      'c.md: text before the first "## user" or "## assistant" heading',
      'd.md: image.file: cannot read missing.png',
      'f.md:2: name: duplicate prompt name "p" (also in e.md)',
    ]);
    expect(records.map((r) => r.name)).toEqual(['p']);
  });
});

describe('bytes that are not UTF-8', () => {
  // 0xE9 alone: "café" saved as Latin-1. Read loosely it would be published as "caf\uFFFD".
  const latin1 = (text: string) => Buffer.from(text, 'latin1');

  it('in a prompt file are an issue naming the file and line, and the prompt is not loaded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-utf8-'));
    writeFileSync(join(dir, 'cafe.md'), latin1('---\nname: cafe\n---\n## user\nOrder a café.\n'));
    writeFileSync(join(dir, 'ok.md'), '---\nname: ok\n---\n## user\nOrder a café.\n');
    const { records, issues } = loadPromptDir(dir);
    expect(issues).toEqual([{ path: 'cafe.md:5', message: expect.stringContaining('is not UTF-8 text') }]);
    expect(records.map((r) => r.name)).toEqual(['ok']);
    expect(() => loadValidDir(dir)).toThrow(`${dir}/cafe.md:5: is not UTF-8 text`);
  });

  it("in a resource block's file are an issue naming the prompt and the asset", () => {
    const md = '---\nname: p\n---\n## user\n```resource\nuri: file:///menu.txt\nfile: menu.txt\n```\n';
    const { records, issues } = loadPromptFiles(source({ 'p.md': md }, { 'menu.txt': latin1('one\ncafé\n') }));
    expect(issues).toEqual([
      { path: 'p.md', message: expect.stringContaining('resource.file: menu.txt, line 2, is not UTF-8 text') },
    ]);
    expect(records).toEqual([]);
  });

  it('are no issue in an image asset, which is sent as its bytes', () => {
    const md = '---\nname: p\n---\n## user\n```image\nfile: pic.png\n```\n';
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xe9, 0xff]);
    const { records, issues } = loadPromptFiles(source({ 'p.md': md }, { 'pic.png': png }));
    expect(issues).toEqual([]);
    expect(records[0]!.messages[0]!.content).toMatchObject({
      type: 'image',
      data: Buffer.from(png).toString('base64'),
    });
  });
});

describe('a UTF-8 byte order mark', () => {
  it('at the start of a .md, .json or .yaml prompt file is no part of it; lines are counted as without it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pg-bom-'));
    const bom = (text: string) => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    const hi = { role: 'user', content: { type: 'text', text: 'hi' } };
    writeFileSync(join(dir, 'p.md'), bom('---\nname: p\n---\n\n## user\n\nhi\n'));
    writeFileSync(join(dir, 'q.json'), bom(JSON.stringify({ name: 'q', messages: [hi] })));
    writeFileSync(
      join(dir, 'r.yaml'),
      bom('name: r\nmessages:\n  - role: user\n    content: {type: text, text: hi}\n'),
    );
    writeFileSync(join(dir, 's.md'), bom('---\nname: s\ntitle: 3\n---\n\n## user\n\nhi\n'));
    const { records, issues } = loadPromptDir(dir);
    expect(records).toEqual(['p', 'q', 'r'].map((name) => ({ name, messages: [hi] })));
    expect(issues).toEqual([{ path: 's.md:3: title', message: expect.any(String) }]);
  });
});

describe('what a prompt file cannot say', () => {
  const say = (files: Record<string, string>, assets: Record<string, Uint8Array> = {}) =>
    loadPromptFiles(source(files, assets)).issues.map((i) => `${i.path}: ${i.message}`);

  it('a key repeated in one object of a JSON file is an issue naming the key and its line, not the last one kept', () => {
    const json = '{\n  "name": "j",\n  "groups": ["sre"],\n  "groups": [],\n  "messages": []\n}\n';
    expect(say({ 'j.json': json })).toEqual([
      'j.json:4: key "groups" appears twice in one object (JSON would keep only the last): keep one',
    ]);
    // The same key in two objects, a key spelt with an escape, and a value that looks like a key are no repeat.
    const fine = {
      name: 'k',
      messages: [
        { role: 'user', content: { type: 'text', text: '"name": "k", {"a": 1, "a": 2}' } },
        { role: 'user', content: { type: 'text', text: 'x' } },
      ],
    };
    expect(say({ 'k.json': JSON.stringify(fine, null, 2) })).toEqual([]);
    expect(say({ 'e.json': '{"name": "e", "n\\u0061me": "f", "messages": []}' })).toEqual([
      'e.json:1: key "name" appears twice in one object (JSON would keep only the last): keep one',
    ]);
  });

  it('a front-matter messages list beside the sections is an issue, not dropped', () => {
    const md = '---\nname: p\nmessages:\n  - role: user\n    content: {type: text, text: hi}\n---\n## user\nthere\n';
    expect(say({ 'p.md': md })).toEqual([
      'p.md:4: messages: not a front-matter field: a Markdown prompt\'s messages are its "## user" and "## assistant" sections',
    ]);
  });

  it('a role heading in the wrong case is an issue naming its line, not text of the turn above', () => {
    expect(say({ 'p.md': '---\nname: p\n---\n## user\nhi\n\n## Assistant\nhello\n' })).toEqual([
      'p.md:7: "## Assistant" is not a section heading, and would be text of the section above: write "## assistant"',
    ]);
  });

  it('a file: in a resource_link block is refused, and the file is not taken as read', () => {
    const md = '---\nname: p\n---\n## user\n```resource_link\nuri: file:///a.txt\nname: a\nfile: a.txt\n```\n';
    const a = '---\nname: a\n---\n## user\nI am a prompt\n';
    const { records, issues } = loadPromptFiles(
      source({ 'a.md': a, 'p.md': md }, { 'a.md': new TextEncoder().encode(a) }),
    );
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'p.md: resource_link.file: a resource link takes no file (it points at its uri); a resource block sends a file as its text',
    ]);
    expect(records.map((r) => r.name)).toEqual(['a']);
  });

  it('a file: that is absolute or leaves the prompts directory is an issue naming the file and line, and nothing is read', () => {
    const read: string[] = [];
    const block = (file: string) =>
      `---\nname: p\n---\n\n## user\n\n\`\`\`resource\nuri: notes://a\nfile: ${file}\n\`\`\`\n`;
    const files = {
      'sub/a.md': block('../../shared/note.txt'),
      'sub/b.md': block('/tmp/note.txt'),
      'sub/c.md': block('C:/notes/note.txt'),
      'sub/d.md': block('..\\..\\shared\\note.txt'),
      'sub/e.md': block('./../x/../../note.txt'),
    };
    const { records, issues } = loadPromptFiles({
      files: new Map(Object.entries(files)),
      readAsset: (p) => (read.push(p), new TextEncoder().encode('note')),
    });
    const outside =
      'is not inside the prompts directory: a file: path is relative to the prompt file, with / between folders, and may not leave the prompts directory';
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      `sub/a.md:9: resource.file: ../../shared/note.txt ${outside}`,
      `sub/b.md:9: resource.file: /tmp/note.txt ${outside}`,
      `sub/c.md:9: resource.file: C:/notes/note.txt ${outside}`,
      `sub/d.md:9: resource.file: ..\\..\\shared\\note.txt ${outside}`,
      `sub/e.md:9: resource.file: ./../x/../../note.txt ${outside}`,
    ]);
    expect(records).toEqual([]);
    expect(read).toEqual([]);
    // One level up from sub/ is still inside: the file is read from the directory's root.
    const inside = loadPromptFiles({
      files: new Map([['sub/f.md', block('../shared/note.txt')]]),
      readAsset: (p) => (read.push(p), new TextEncoder().encode('note')),
    });
    expect(inside.issues).toEqual([]);
    expect(read).toEqual(['shared/note.txt']);
  });

  it("a resource block's file longer than a text may be is an issue naming the prompt file and the field", () => {
    const md = '---\nname: p\n---\n\n## user\n\n```resource\nuri: spec://api\nfile: spec.txt\n```\n';
    const spec = new TextEncoder().encode('x'.repeat(100_001));
    expect(say({ 'p.md': md }, { 'spec.txt': spec })).toEqual([
      'p.md:5: messages[0].content.resource.text: longer than 100000 characters',
    ]);
  });

  it('a typed block followed by more of the section, a later code fence included, is a text block', () => {
    const section = '```image\nfile: x.png\n```\n\nThen run:\n\n```sh\nls\n```';
    const { records, issues } = loadPromptFiles(source({ 'p.md': `---\nname: p\n---\n## user\n${section}\n` }));
    expect(issues).toEqual([]);
    expect(records[0]!.messages[0]!.content).toEqual({ type: 'text', text: section });
  });

  it("a YAML error in a typed block is named at the prompt file's line", () => {
    const md = '---\nname: p\n---\n\n## user\n\n```resource\nuri: log://a\nuri: log://b\n```\n';
    expect(say({ 'p.md': md })).toEqual(['p.md:9: resource block: Map keys must be unique']);
  });

  it('a record nested deeper than a request may carry is an issue naming the file and the field', () => {
    let meta: Record<string, unknown> = {};
    for (let i = 0; i < 60; i++) meta = { a: meta };
    const rec = { name: 'deep', messages: [{ role: 'user', content: { type: 'text', text: 'x', _meta: meta } }] };
    const [issue, ...rest] = say({ 'deep.json': JSON.stringify(rec) });
    expect(rest).toEqual([]);
    expect(issue).toMatch(/^deep\.json: messages\[0\]\.content\._meta(\.a)+: nests deeper than 32 levels/);
  });
});
