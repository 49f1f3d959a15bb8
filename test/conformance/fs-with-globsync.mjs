/**
 * node:fs plus the Node 22 `globSync(pattern, { cwd })` the conformance CLI uses to find
 * its spec files, implemented with tinyglobby (returns paths relative to cwd, like Node's).
 */
import fs from 'node:fs';
import { globSync as tinyGlobSync } from 'tinyglobby';

export * from 'node:fs';
export default fs;

export function globSync(pattern, options = {}) {
  return tinyGlobSync(pattern, { cwd: options.cwd, onlyFiles: false, dot: true, expandDirectories: false });
}
