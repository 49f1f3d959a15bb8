/**
 * `{{argument}}` substitution: compiled once per catalog generation, then
 * rendered per request by string concatenation. Plain substitution only;
 * nothing in a template or an argument value is ever evaluated, and
 * substituted values are not re-scanned for placeholders.
 */

import { utf8Length } from './arguments.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/** Alternating literal text and argument names: [text, arg, text, arg, text]. */
export type Template = readonly string[];

export function compileTemplate(source: string): Template {
  const parts: string[] = [];
  let last = 0;
  for (const m of source.matchAll(PLACEHOLDER)) {
    parts.push(source.slice(last, m.index), m[1]!);
    last = m.index + m[0].length;
  }
  parts.push(source.slice(last));
  return parts;
}

export function placeholders(source: string): string[] {
  return [...source.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

/** An argument's value, own properties only: a name such as `toString` must never reach Object.prototype. */
const valueOf = (args: Readonly<Record<string, string>>, name: string): string =>
  Object.hasOwn(args, name) ? args[name]! : '';

export function render(t: Template, args: Readonly<Record<string, string>>): string {
  if (t.length === 1) return t[0]!;
  let out = t[0]!;
  for (let i = 1; i < t.length; i += 2) out += valueOf(args, t[i]!) + t[i + 1]!;
  return out;
}

/** The UTF-8 length `render` would produce, without building it. */
export function renderedLength(t: Template, args: Readonly<Record<string, string>>): number {
  let n = 0;
  for (let i = 0; i < t.length; i++) n += utf8Length(i % 2 === 0 ? t[i]! : valueOf(args, t[i]!));
  return n;
}

/** The string fields of a content block that may hold placeholders. Base64 payloads never do. */
export function templatedFields(block: Record<string, unknown>): { obj: Record<string, unknown>; key: string }[] {
  const out: { obj: Record<string, unknown>; key: string }[] = [];
  const add = (obj: Record<string, unknown>, keys: string[]) => {
    for (const key of keys) if (typeof obj[key] === 'string') out.push({ obj, key });
  };
  switch (block.type) {
    case 'text':
      add(block, ['text']);
      break;
    case 'resource_link':
      add(block, ['uri', 'name', 'title', 'description']);
      break;
    case 'resource': {
      const r = block.resource;
      if (r && typeof r === 'object') add(r as Record<string, unknown>, ['uri', 'text']);
      break;
    }
  }
  return out;
}
