import { GetPromptResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { validatePrompt, validateSet } from '../../src/catalog/validate.js';

const ok = { name: 'p', messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] };
const paths = (x: unknown) => validatePrompt(x).map((i) => `${i.path}: ${i.message}`);

describe('validatePrompt', () => {
  it('accepts a minimal record', () => {
    expect(validatePrompt(ok)).toEqual([]);
  });
  it('names the field path of each problem', () => {
    expect(paths({ ...ok, name: '' })).toEqual(['name: must not be empty']);
    expect(paths({ ...ok, name: 'has space' })).toEqual([
      'name: may only use A-Z a-z 0-9 _ . - (at most 64 characters), and may not start with a dot',
    ]);
    expect(paths({ ...ok, arguments: [{ name: 'a' }, { description: 'x' }] })).toEqual(['arguments[1].name: required']);
    expect(paths({ ...ok, arguments: [{ name: 'a' }, { name: 'a' }] })).toEqual([
      'arguments[1].name: duplicate argument "a"',
    ]);
    expect(paths({ ...ok, arguments: [{ name: 'a', required: 'yes' }] })).toEqual([
      'arguments[0].required: must be true or false',
    ]);
    expect(paths({ ...ok, messages: [] })).toEqual(['messages: must be a non-empty list']);
    expect(paths({ ...ok, messages: [{ role: 'system', content: { type: 'text', text: 'x' } }] })).toEqual([
      'messages[0].role: must be user or assistant',
    ]);
    expect(paths({ ...ok, icons: [{ src: 'javascript:alert(1)' }] })).toEqual([
      'icons[0].src: must be an https: or data: URI',
    ]);
  });
  it('refuses fields a record, an argument or a message does not have, naming a near one', () => {
    expect(paths({ ...ok, group: ['sre'], descripton: 'x', colour: 'red' })).toEqual([
      'group: is not a prompt field (did you mean "groups"?); known: name, title, description, icons, tags, groups, tool, arguments, messages',
      'descripton: is not a prompt field (did you mean "description"?); known: name, title, description, icons, tags, groups, tool, arguments, messages',
      'colour: is not a prompt field; known: name, title, description, icons, tags, groups, tool, arguments, messages',
    ]);
    expect(paths({ ...ok, tools: false }).map((p) => p.split(';')[0])).toEqual([
      'tools: is not a prompt field (did you mean "tool"?)',
    ]);
    expect(paths({ ...ok, arguments: [{ name: 'a', Required: true }] }).map((p) => p.split(';')[0])).toEqual([
      'arguments[0].Required: is not an argument field (did you mean "required"?)',
    ]);
  });
  it('refuses fields a content block or its resource does not have, naming a near one', () => {
    const bad = (content: unknown) =>
      paths({ name: 'p', messages: [{ role: 'user', content }] }).map((p) => p.split('; known')[0]);
    expect(bad({ type: 'text', text: 'hi', anotations: { priority: 1 } })).toEqual([
      'messages[0].content.anotations: is not a text block field (did you mean "annotations"?)',
    ]);
    expect(bad({ type: 'image', data: 'AAAA', mimeType: 'image/png', mimetype: 'image/png' })).toEqual([
      'messages[0].content.mimetype: is not an image block field (did you mean "mimeType"?)',
    ]);
    expect(bad({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav', uri: 'x://y' })).toEqual([
      'messages[0].content.uri: is not an audio block field',
    ]);
    expect(bad({ type: 'resource_link', uri: 'x://y', name: 'y', text: 'inline' })).toEqual([
      'messages[0].content.text: is not a resource_link block field',
    ]);
    expect(bad({ type: 'resource', resource: { uri: 'x://y', text: 't' }, uri: 'x://y' })).toEqual([
      'messages[0].content.uri: is not a resource block field',
    ]);
    expect(bad({ type: 'resource', resource: { uri: 'x://y', text: 't', annotations: {} } })).toEqual([
      'messages[0].content.resource.annotations: is not an embedded resource field',
    ]);
    expect(bad({ type: 'resource', resource: { uri: 'x://y', text: 't', blob: 'AAAA' } })).toEqual([
      'messages[0].content.resource: has text and blob: keep one',
    ]);
    expect(paths({ name: 'p', messages: [{ role: 'user', content: { type: 'text', text: 'hi', x: 1 } }] })).toEqual([
      'messages[0].content.x: is not a text block field; known: type, text, annotations, _meta',
    ]);
    // Every field the MCP 2025-11-25 schema defines for a block is taken.
    const extras = { annotations: { priority: 1 }, _meta: { a: 1 } };
    for (const content of [
      { type: 'text', text: 'hi', ...extras },
      { type: 'image', data: 'AAAA', mimeType: 'image/png', ...extras },
      { type: 'audio', data: 'AAAA', mimeType: 'audio/wav', ...extras },
      {
        type: 'resource_link',
        uri: 'x://y',
        name: 'y',
        title: 'Y',
        description: 'd',
        mimeType: 'text/plain',
        size: 1,
        icons: [{ src: 'https://example.com/y.svg' }],
        ...extras,
      },
      { type: 'resource', resource: { uri: 'x://y', mimeType: 'text/plain', text: 't', _meta: {} }, ...extras },
      { type: 'resource', resource: { uri: 'x://y', mimeType: 'image/png', blob: 'AAAA', _meta: {} }, ...extras },
    ])
      expect(bad(content), JSON.stringify(content)).toEqual([]);
  });
  it("bounds a text block's text and a resource's text alike, at 100,000 characters", () => {
    const bad = (content: unknown) => paths({ name: 'p', messages: [{ role: 'user', content }] });
    const most = 'x'.repeat(100_000);
    expect(bad({ type: 'text', text: most })).toEqual([]);
    expect(bad({ type: 'resource', resource: { uri: 'x://y', text: most } })).toEqual([]);
    expect(bad({ type: 'text', text: `${most}x` })).toEqual([
      'messages[0].content.text: longer than 100000 characters',
    ]);
    expect(bad({ type: 'resource', resource: { uri: 'x://y', text: `${most}x` } })).toEqual([
      'messages[0].content.resource.text: longer than 100000 characters',
    ]);
  });
  it('rejects placeholders that name no declared argument, at load time', () => {
    const rec = {
      name: 'p',
      arguments: [{ name: 'code' }],
      messages: [{ role: 'user', content: { type: 'text', text: '{{code}} {{lang}}' } }],
    };
    expect(paths(rec)).toEqual(['messages[0].content: placeholder {{lang}} names no declared argument']);
    const res = {
      name: 'p',
      messages: [{ role: 'user', content: { type: 'resource', resource: { uri: 'x://{{svc}}', text: 't' } } }],
    };
    expect(paths(res)).toEqual(['messages[0].content: placeholder {{svc}} names no declared argument']);
  });
  it('checks every content block type', () => {
    const bad = (content: unknown) => paths({ name: 'p', messages: [{ role: 'user', content }] });
    expect(bad({ type: 'image', data: 'not base64!', mimeType: 'image/png' })).toEqual([
      'messages[0].content.data: must be base64 in its canonical form (groups of 4 characters, = padding only as needed)',
    ]);
    expect(bad({ type: 'image', data: 'AAAA', mimeType: 'text/plain' })).toEqual([
      'messages[0].content.mimeType: must be a image/* type',
    ]);
    expect(bad({ type: 'audio', data: 'AAAA' })).toEqual(['messages[0].content.mimeType: required']);
    expect(bad({ type: 'resource', resource: { uri: 'x://y' } })).toEqual([
      'messages[0].content.resource: needs text or blob',
    ]);
    expect(bad({ type: 'resource_link', uri: 'x://y' })).toEqual(['messages[0].content.name: required']);
    expect(bad({ type: 'video' })).toEqual([
      'messages[0].content.type: must be one of text, image, audio, resource, resource_link',
    ]);
    expect(bad({ type: 'audio', data: 'AAAA', mimeType: 'audio/wav' })).toEqual([]);
  });
});

describe('what a content block carries besides its content', () => {
  const text = { type: 'text', text: 'hi' };
  const link = { type: 'resource_link', uri: 'x://y', name: 'y' };
  const embedded = { type: 'resource', resource: { uri: 'x://y', text: 't' } };
  const blocks: [string, Record<string, unknown>, string[]][] = [
    ['audience', { ...text, annotations: { audience: ['user', 'assistant'] } }, []],
    ['priority', { ...text, annotations: { priority: 0.5 } }, []],
    ['a date-time', { ...text, annotations: { lastModified: '2026-01-31T12:00:00.123+01:00' } }, []],
    ['_meta', { ...embedded, _meta: { a: 1 }, resource: { ...embedded.resource, _meta: { b: 2 } } }, []],
    ['a size', { ...link, size: 120, annotations: {} }, []],
    ['one audience', { ...text, annotations: { audience: 'user' } }, ['annotations.audience']],
    ['another role', { ...text, annotations: { audience: ['system'] } }, ['annotations.audience']],
    ['priority 5', { ...link, annotations: { priority: 5 } }, ['annotations.priority']],
    ['a numeric string', { ...text, annotations: { priority: '0.5' } }, ['annotations.priority']],
    ['no seconds', { ...text, annotations: { lastModified: '2026-01-31T12:00Z' } }, ['annotations.lastModified']],
    ['no day', { ...text, annotations: { lastModified: '2026-02-30T12:00:00Z' } }, ['annotations.lastModified']],
    ['no offset', { ...text, annotations: { lastModified: '2026-01-31T12:00:00' } }, ['annotations.lastModified']],
    ['a list', { ...text, annotations: [] }, ['annotations']],
    ['a string _meta', { ...text, _meta: 'x' }, ['_meta']],
    ['a list _meta', { ...embedded, resource: { ...embedded.resource, _meta: [] } }, ['resource._meta']],
    ['a string size', { ...link, size: '120' }, ['size']],
  ];
  it.each(blocks)('%s: refused where the SDK clients refuse it, with its path', (_, content, wrong) => {
    const issues = validatePrompt({ name: 'p', messages: [{ role: 'user', content }] });
    expect(issues.map((i) => i.path)).toEqual(wrong.map((w) => `messages[0].content.${w}`));
    // Exactly what an SDK client accepts from prompts/get.
    expect(GetPromptResultSchema.safeParse({ messages: [{ role: 'user', content }] }).success).toBe(wrong.length === 0);
  });
});

describe('validateSet', () => {
  it('reports duplicate names with both positions', () => {
    expect(validateSet([ok, { ...ok }])).toEqual([
      { path: 'prompts[1]: name', message: 'duplicate prompt name "p" (also prompts[0])' },
    ]);
  });
});
