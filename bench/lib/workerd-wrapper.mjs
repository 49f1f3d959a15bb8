/**
 * Starting Miniflare's workerd through a shell wrapper (MINIFLARE_WORKERD_PATH): under callgrind
 * (instructions/callgrind.mjs), or with its stdout sent elsewhere (worker-logs.mjs). The wrapper
 * `exec`s, so what it runs keeps the pid of the child Miniflare spawned.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The workerd binary Miniflare would run. */
export const WORKERD = createRequire(import.meta.url).resolve('@cloudflare/workerd-linux-64/bin/workerd');

/** Every workerd Miniflare starts from now on runs as `exec <command>`, written to `tmp/<file>`. */
export function wrapWorkerd(tmp, file, command) {
  const wrapper = join(tmp, file);
  writeFileSync(wrapper, `#!/bin/sh\nexec ${command}\n`);
  chmodSync(wrapper, 0o755);
  process.env.MINIFLARE_WORKERD_PATH = wrapper;
}
