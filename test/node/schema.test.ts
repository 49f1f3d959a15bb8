/**
 * The published JSON Schema agrees with the loader on the shipped examples
 * and on a broken record.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { loadPromptDir } from '../../cli/fs-source.js';

const schema = JSON.parse(readFileSync('schema/prompt.schema.json', 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: false }).compile(schema);

describe('schema/prompt.schema.json', () => {
  it('accepts every example record', () => {
    for (const r of loadPromptDir('prompts').records)
      expect(validate(r), `${r.name}: ${JSON.stringify(validate.errors)}`).toBe(true);
  });
  it('rejects what the loader rejects', () => {
    expect(validate({ name: 'bad name', messages: [] })).toBe(false);
    expect(validate({ name: 'p', arguments: [{ description: 'no name' }] })).toBe(false);
    expect(validate({ name: 'p', messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] })).toBe(false);
    expect(validate({ name: 'p', icons: [{ src: 'javascript:alert(1)' }] })).toBe(false);
  });
  it("refuses a content block's unknown fields, and takes every field MCP defines for it", () => {
    const record = (content: unknown) => ({ name: 'p', messages: [{ role: 'user', content }] });
    const extras = { annotations: { audience: ['user'], priority: 0.5 }, _meta: { a: 1 } };
    expect(validate(record({ type: 'text', text: 'hi', anotations: { priority: 1 } }))).toBe(false);
    expect(validate(record({ type: 'resource', resource: { uri: 'x://y', text: 't', annotations: {} } }))).toBe(false);
    expect(validate(record({ type: 'resource_link', uri: 'x://y', name: 'y', text: 't' }))).toBe(false);
    for (const content of [
      { type: 'text', text: 'hi', ...extras },
      { type: 'image', data: 'AAAA', mimeType: 'image/png', ...extras },
      { type: 'resource', resource: { uri: 'x://y', text: 't', _meta: {} }, ...extras },
      { type: 'resource_link', uri: 'x://y', name: 'y', size: 1, icons: [{ src: 'https://e.com/i.svg' }], ...extras },
    ])
      expect(validate(record(content)), JSON.stringify(validate.errors)).toBe(true);
  });
  it("bounds a text block's text and a resource's text at 100,000 characters", () => {
    const record = (content: unknown) => ({ name: 'p', messages: [{ role: 'user', content }] });
    const most = 'x'.repeat(100_000);
    expect(validate(record({ type: 'text', text: most }))).toBe(true);
    expect(validate(record({ type: 'resource', resource: { uri: 'x://y', text: most } }))).toBe(true);
    expect(validate(record({ type: 'text', text: `${most}x` }))).toBe(false);
    expect(validate(record({ type: 'resource', resource: { uri: 'x://y', text: `${most}x` } }))).toBe(false);
  });
});
