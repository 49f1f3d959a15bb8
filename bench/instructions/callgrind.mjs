/**
 * Counting instructions with valgrind's callgrind on a whole workerd process: Miniflare starts
 * workerd through a wrapper script (MINIFLARE_WORKERD_PATH) that runs it under callgrind, and
 * each batch is bracketed by `callgrind_control -z` (zero) and `-d` (dump), whose `totals:`
 * line is the batch's count.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { WORKERD, wrapWorkerd } from '../lib/workerd-wrapper.mjs';

export function requireValgrind() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('valgrind is not installed (Debian: apt-get install valgrind)');
  }
}

/** Points Miniflare at a wrapper that runs workerd under callgrind, dumping into `tmp` as cg.<pid>. */
export function useCallgrindWorkerd(tmp) {
  wrapWorkerd(
    tmp,
    'workerd-callgrind.sh',
    `valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=${tmp}/cg.%p "${WORKERD}" "$@"`,
  );
}

/** Starts a Miniflare whose workerd runs under callgrind; returns it with the pid of its callgrind process. */
export async function startCounted(h, tmp, options, label) {
  const before = new Set(readdirSync(tmp));
  const mf = new Miniflare(options);
  h.onCleanup(label, () => mf.dispose());
  const url = await mf.ready;
  const pid = readdirSync(tmp)
    .find((f) => /^cg\.\d+$/.test(f) && !before.has(f))
    ?.slice(3);
  assert.ok(pid, `${label}: no callgrind output file: did workerd start under the wrapper?`);
  return { mf, url, pid };
}

/**
 * Counts what `work()` costs the process `pid`: zero, run, dump as `tag`. `dumps` (pid → count)
 * tracks callgrind's numbering of the dump files. Resolves { instructions, dump (its path) }.
 */
export async function countBatch(tmp, pid, tag, dumps, work) {
  execFileSync('callgrind_control', ['-z', pid], { stdio: 'ignore' });
  await work();
  execFileSync('callgrind_control', ['-d', tag, pid], { stdio: 'ignore' });
  dumps.set(pid, (dumps.get(pid) ?? 0) + 1);
  const dump = join(tmp, `cg.${pid}.${dumps.get(pid)}`);
  const totals = /^totals: (\d+)/m.exec(readFileSync(dump, 'utf8'));
  assert.ok(totals, `${dump} has no totals line`);
  return { instructions: Number(totals[1]), dump };
}
