/**
 * `tool` in a prompt file (docs/tools-mirror.md): the loader passes `tool: false` through to the
 * record the CLI publishes, refuses a value that is not a boolean at its line, and the published
 * JSON Schema agrees.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { FileSource } from '../../cli/files.js';
import { loadPromptFiles } from '../../cli/load.js';

const source = (files: Record<string, string>): FileSource => ({
  files: new Map(Object.entries(files)),
  readAsset: () => undefined,
});
const file = (tool: string) => `---\nname: private_notes\ndescription: Notes\n${tool}---\n\n## user\nhello\n`;

describe('tool in front matter', () => {
  it('`tool: false` reaches the record; absent stays absent', () => {
    const { records, issues } = loadPromptFiles(
      source({ 'prompts/a.md': file('tool: false\n'), 'prompts/b.md': file('').replace('private_notes', 'open') }),
    );
    expect(issues).toEqual([]);
    expect(records.find((r) => r.name === 'private_notes')?.tool).toBe(false);
    expect(records.find((r) => r.name === 'open')).not.toHaveProperty('tool');
  });

  it('a value that is not a boolean is refused at its line', () => {
    const { issues } = loadPromptFiles(source({ 'prompts/a.md': file('tool: nope\n') }));
    expect(issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'prompts/a.md:4: tool: must be true or false (false: not mirrored as a tool)',
    ]);
  });

  it('the JSON Schema accepts a boolean and refuses anything else', () => {
    const schema = JSON.parse(readFileSync('schema/prompt.schema.json', 'utf8'));
    const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);
    expect(validate({ name: 'p', tool: false })).toBe(true);
    expect(validate({ name: 'p', tool: 'no' })).toBe(false);
  });
});
