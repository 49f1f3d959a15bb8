/**
 * The prompt page's markup for what only its data decides: where an admin is sent for the versions
 * the page leaves out (the admin API and the CLI know a local prompt by its record's name, which
 * differs from the name the page shows when LOCAL_PREFIX is set), and the form's element ids.
 */
import { describe, expect, it } from 'vitest';
import { PromptPage } from '../../src/web/prompt-page.js';
import type { PromptPageData } from '../../src/web/types.js';

const page = (shown: string, recordName: string): PromptPageData => ({
  mcpUrl: 'https://gateway.test/mcp',
  generation: 7,
  updatedAt: '2026-11-29T00:00:00.000Z',
  needsKey: false,
  card: { name: shown, title: undefined, description: undefined, tags: [], source: 'local', use: undefined },
  arguments: [],
  given: {},
  preview: undefined,
  changed: undefined,
  history: {
    rows: [{ version: 6, createdAt: '2026-11-28T00:00:00.000Z', by: 'ci', deleted: false }],
    older: 5,
    recordName,
  },
});

describe('the prompt page of a prompt with more versions than it shows', () => {
  it('points the admin at the history under the record name, not the published one', () => {
    const html = String(PromptPage({ d: page('team.review', 'review') }));
    expect(html).toContain('<code class="slash">/team.review</code>');
    expect(html).toContain('<code>GET /admin/prompts/review/history?before=6</code>');
    expect(html).toContain('<code>promptgate history review</code>');
    expect(html).not.toContain('/admin/prompts/team.review/');
  });
});

describe("the form of a prompt whose argument names hold spaces (an upstream's)", () => {
  it('gives each field, label and datalist an id without whitespace, a plain name keeping its own', () => {
    const d = page('up.ask', 'up.ask');
    d.arguments = [
      { name: 'my arg', title: undefined, description: undefined, required: false, values: ['a'] },
      { name: 'plain', title: undefined, description: undefined, required: false, values: [] },
    ];
    const html = String(PromptPage({ d }));
    expect(html).toContain('<label for="arg-my%20arg">');
    expect(html).toContain('id="arg-my%20arg" name="arg:my arg" data-argument="my arg" list="values-my%20arg"');
    expect(html).toContain('<datalist id="values-my%20arg">');
    expect(html).toContain('id="arg-plain"');
    for (const [, id] of html.matchAll(/\b(?:id|for|list)="([^"]*)"/g)) expect(id).not.toMatch(/\s/);
  });
});
