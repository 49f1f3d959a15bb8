/**
 * Upstream `prompts/get` content is untrusted, like listings (sanitize.ts):
 * only the content types the spec defines pass, each rebuilt from its known
 * fields; a URI with a script-capable scheme (`javascript:`, `vbscript:`,
 * `data:`, `blob:`, `about:`) or with control characters or whitespace (which URL
 * parsers strip, turning `java\tscript:` back into `javascript:`) drops its
 * block, and icons follow the listing rule (https:, or a small
 * data:image/). Upstream `_meta` on content is not passed on.
 */
import type { ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { isRecord } from '../../lib/json.js';
import { decodesAsBase64, isIsoDateTime } from '../content-checks.js';

const MAX_DATA_ICON = 100_000;
const MAX_ICONS = 3;
const MAX_URI = 2048;
const REFUSED_SCHEMES = new Set(['javascript', 'vbscript', 'data', 'blob', 'about']);

type Obj = Record<string, unknown>;
const str = (v: unknown): v is string => typeof v === 'string';

// eslint-disable-next-line no-control-regex -- refusing control characters is the point
const CONTROL_OR_SPACE = /[\x00-\x20\x7f]/;

/** A resource URI a client may follow: an explicit, non-script scheme, no whitespace or control characters. */
export function safeUri(v: unknown): v is string {
  if (!str(v) || v.length > MAX_URI || CONTROL_OR_SPACE.test(v)) return false;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(v)?.[1]?.toLowerCase();
  return scheme !== undefined && !REFUSED_SCHEMES.has(scheme);
}

/** Icons as listings allow them: https:, or a data:image/ up to 100 KB. */
export function safeIcons(v: unknown): { src: string; mimeType?: string }[] | undefined {
  if (!Array.isArray(v)) return undefined;
  const icons = v
    .filter(
      (i): i is Obj =>
        isRecord(i) &&
        str(i.src) &&
        !CONTROL_OR_SPACE.test(i.src) &&
        (/^https:/i.test(i.src) || (/^data:image\//i.test(i.src) && i.src.length <= MAX_DATA_ICON)),
    )
    .slice(0, MAX_ICONS)
    .map((i) => ({ src: i.src as string, ...(str(i.mimeType) ? { mimeType: i.mimeType } : {}) }));
  return icons.length ? icons : undefined;
}

function annotations(v: unknown): Obj | undefined {
  if (!isRecord(v)) return undefined;
  const out: Obj = {};
  if (Array.isArray(v.audience)) out.audience = v.audience.filter((a) => a === 'user' || a === 'assistant');
  if (typeof v.priority === 'number' && v.priority >= 0 && v.priority <= 1) out.priority = v.priority;
  // Cut or malformed, a date makes the SDK's clients refuse the whole prompts/get: dropped instead.
  if (isIsoDateTime(v.lastModified) && v.lastModified.length <= 64) out.lastModified = v.lastModified;
  return Object.keys(out).length ? out : undefined;
}

/** The block rebuilt from its known fields, or null when it must not reach the client. */
export function sanitizeContent(block: unknown): ContentBlock | null {
  if (!isRecord(block)) return null;
  const a = annotations(block.annotations);
  const withAnn = <T extends Obj>(b: T) => (a ? { ...b, annotations: a } : b);
  switch (block.type) {
    case 'text':
      return str(block.text) ? withAnn({ type: 'text' as const, text: block.text }) : null;
    case 'image':
    case 'audio':
      if (!str(block.mimeType) || !block.mimeType.toLowerCase().startsWith(`${block.type}/`)) return null;
      if (!str(block.data) || !decodesAsBase64(block.data)) return null;
      return withAnn({ type: block.type, data: block.data, mimeType: block.mimeType });
    case 'resource': {
      const r = block.resource;
      if (!isRecord(r) || !safeUri(r.uri)) return null;
      const body = str(r.text) ? { text: r.text } : str(r.blob) && decodesAsBase64(r.blob) ? { blob: r.blob } : null;
      if (!body) return null;
      return withAnn({
        type: 'resource' as const,
        resource: { uri: r.uri, ...(str(r.mimeType) ? { mimeType: r.mimeType } : {}), ...body },
      });
    }
    case 'resource_link': {
      if (!safeUri(block.uri) || !str(block.name)) return null;
      const link: Obj = { type: 'resource_link', uri: block.uri, name: block.name };
      for (const k of ['title', 'description', 'mimeType'] as const) if (str(block[k])) link[k] = block[k];
      if (typeof block.size === 'number' && Number.isFinite(block.size)) link.size = block.size;
      const icons = safeIcons(block.icons);
      if (icons) link.icons = icons;
      return withAnn(link) as ContentBlock;
    }
    default:
      return null;
  }
}
