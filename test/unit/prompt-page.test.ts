/**
 * The prompt page's markup for what only its data decides: where an admin is sent for the versions
 * the page leaves out. The admin API and the CLI know a local prompt by its record's name, which
 * differs from the name the page shows when LOCAL_PREFIX is set.
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
