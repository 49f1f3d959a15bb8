/**
 * What an interrupted command leaves at the gateway is undone before it exits. Ctrl-C (SIGINT)
 * or SIGTERM in the middle of a push would otherwise leave its upload open for its hour, holding
 * one of the gateway's few upload slots. A signal stops the command first: `stopped` aborts every
 * request in flight and refuses any new one (http.ts), so nothing more is published once the user
 * has asked to stop. Then the cleanups still registered run, for at most CLEANUP_MS, and the process
 * exits with the signal's code (130, 143); a second signal exits at once.
 */
import { CliError } from './api-types.js';

const CLEANUP_MS = 5_000;
const CODES = { SIGINT: 130, SIGTERM: 143 } as const;

const cleanups = new Set<() => Promise<void>>();
const stopping = new AbortController();
let installed = false;

/** Aborted by the first signal, its reason the error a stopped request throws. */
export const stopped: AbortSignal = stopping.signal;

async function onSignal(signal: keyof typeof CODES): Promise<void> {
  const code = CODES[signal];
  if (stopped.aborted) process.exit(code);
  stopping.abort(new CliError(`stopped by ${signal}`));
  const pending = [...cleanups];
  if (pending.length)
    process.stderr.write(`promptgate: ${signal}: undoing what was left half done (again to stop at once)\n`);
  const deadline = new Promise((r) => setTimeout(r, CLEANUP_MS).unref());
  await Promise.race([Promise.allSettled(pending.map((f) => f())), deadline]);
  process.exit(code);
}

/**
 * Runs `cleanup` if the process is stopped by a signal before the returned release is called.
 * The cleanup's own requests must be sent as such (`undo` in http.ts): every other one is refused.
 */
export function untilDone(cleanup: () => Promise<void>): () => void {
  if (!installed) {
    installed = true;
    for (const signal of Object.keys(CODES) as (keyof typeof CODES)[]) process.on(signal, () => void onSignal(signal));
  }
  cleanups.add(cleanup);
  return () => void cleanups.delete(cleanup);
}
