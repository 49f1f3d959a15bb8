/**
 * The index's search and filters, on the server (the no-JavaScript form) with the same rules the
 * script applies in the browser: every search word must appear in the name, title, description or
 * tags (case-insensitive); the tag and source filters match exactly.
 */
import type { Filters, PromptCard } from './types.js';

export const NO_FILTERS: Filters = { q: '', tag: '', source: '' };

/** The searchable text of a prompt (what the script reads from the same fields). */
export const haystack = (p: PromptCard) =>
  [p.name, p.title ?? '', p.description ?? '', ...p.tags].join(' ').toLowerCase();

export function matches(p: PromptCard, f: Filters): boolean {
  if (f.tag && !p.tags.includes(f.tag)) return false;
  if (f.source && p.source !== f.source) return false;
  const words = f.q.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const text = haystack(p);
  return words.every((w) => text.includes(w));
}

/**
 * Filters from a query string: bounded, so a huge parameter costs nothing. The tag and source are
 * taken as sent, never trimmed: a tag is any string, and one published with a space at either end
 * must still be a filter that finds its prompts.
 */
export function filtersOf(get: (name: string) => string | undefined): Filters {
  const read = (k: string) => (get(k) ?? '').slice(0, 200);
  return { q: read('q').trim(), tag: read('tag'), source: read('source') };
}

export const filtered = (f: Filters) => f.q !== '' || f.tag !== '' || f.source !== '';
