/**
 * Records for flow tests: small, covering every content type and every
 * revision-dependent field, independent of the example files.
 */
import type { PromptRecord } from '../../src/catalog/types.js';

const PNG_1x1 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

export const FIXTURE_PROMPTS: PromptRecord[] = [
  {
    name: 'greet',
    title: 'Greeting',
    description: 'Says hello',
    icons: [{ src: 'https://example.com/icon.png', mimeType: 'image/png' }],
    arguments: [
      {
        name: 'who',
        title: 'Who',
        description: 'Person to greet',
        required: true,
        values: ['alice', 'bob', 'alfred', 'carol'],
      },
      { name: 'tone', values: ['formal', 'casual'] },
    ],
    messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to {{who}} in a {{ tone }} tone.' } }],
  },
  {
    name: 'linky',
    title: 'Link prompt',
    arguments: [{ name: 'path', required: true }],
    messages: [
      {
        role: 'user',
        content: { type: 'resource_link', uri: 'file:///{{path}}', name: 'source file', title: 'Source' },
      },
      { role: 'assistant', content: { type: 'text', text: 'Read it.' } },
    ],
  },
  {
    name: 'embedded',
    arguments: [{ name: 'service', required: true }],
    messages: [
      {
        role: 'user',
        content: {
          type: 'resource',
          resource: { uri: 'log://{{service}}', mimeType: 'text/plain', text: 'error in {{service}}' },
        },
      },
    ],
  },
  { name: 'picture', messages: [{ role: 'user', content: { type: 'image', data: PNG_1x1, mimeType: 'image/png' } }] },
  { name: 'alpha', messages: [{ role: 'user', content: { type: 'text', text: 'first by name' } }] },
  { name: 'zeta', messages: [{ role: 'user', content: { type: 'text', text: 'last by name' } }] },
  {
    name: 'many',
    arguments: [{ name: 'n', values: Array.from({ length: 150 }, (_, i) => `v${String(i).padStart(3, '0')}`) }],
    messages: [{ role: 'user', content: { type: 'text', text: '{{n}}' } }],
  },
];
