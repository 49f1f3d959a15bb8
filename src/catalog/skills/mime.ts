/**
 * Media types of skill files, by extension, for files published without one, and which of them
 * resources/read sends as `text` (valid UTF-8 only) rather than a base64 `blob`.
 */

const TYPES: Readonly<Record<string, string>> = {
  md: 'text/markdown',
  markdown: 'text/markdown',
  txt: 'text/plain',
  csv: 'text/csv',
  html: 'text/html',
  htm: 'text/html',
  css: 'text/css',
  xml: 'application/xml',
  json: 'application/json',
  yaml: 'application/yaml',
  yml: 'application/yaml',
  toml: 'application/toml',
  js: 'text/javascript',
  mjs: 'text/javascript',
  ts: 'text/x-typescript',
  py: 'text/x-python',
  sh: 'text/x-shellscript',
  rb: 'text/x-ruby',
  go: 'text/x-go',
  rs: 'text/x-rust',
  java: 'text/x-java',
  sql: 'application/sql',
  svg: 'image/svg+xml',
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  pdf: 'application/pdf',
  zip: 'application/zip',
  wasm: 'application/wasm',
};

export function mimeTypeOf(path: string): string {
  const name = path.slice(path.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return (dot > 0 && TYPES[name.slice(dot + 1).toLowerCase()]) || 'application/octet-stream';
}

const TEXT_APPLICATIONS = new Set([
  'application/json',
  'application/xml',
  'application/yaml',
  'application/toml',
  'application/sql',
  'application/javascript',
]);

/** Whether a type is text by nature; the bytes must still decode as UTF-8 to be sent as `text`. */
export function isTextual(mimeType: string): boolean {
  const t = mimeType.split(';', 1)[0]!.trim().toLowerCase();
  return t.startsWith('text/') || TEXT_APPLICATIONS.has(t) || t.endsWith('+json') || t.endsWith('+xml');
}
