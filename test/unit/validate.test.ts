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

describe('validateSet', () => {
  it('reports duplicate names with both positions', () => {
    expect(validateSet([ok, { ...ok }])).toEqual([
      { path: 'prompts[1]: name', message: 'duplicate prompt name "p" (also prompts[0])' },
    ]);
  });
});
