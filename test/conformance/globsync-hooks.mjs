/**
 * Module resolve hook (loaded by globsync-preload.mjs): `fs` / `node:fs` imported from
 * inside a conformance package resolves to fs-with-globsync.mjs; everything else is untouched.
 */
const SHIM = new URL('./fs-with-globsync.mjs', import.meta.url).href;
const CONFORMANCE_PACKAGE = /\/node_modules\/(@modelcontextprotocol\/conformance|conformance-next)\//;

export async function resolve(specifier, context, next) {
  const fromConformance = context.parentURL !== undefined && CONFORMANCE_PACKAGE.test(context.parentURL);
  if (fromConformance && (specifier === 'fs' || specifier === 'node:fs')) return { url: SHIM, shortCircuit: true };
  return next(specifier, context);
}
