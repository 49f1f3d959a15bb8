/**
 * Where the measured Workers' console output goes. By default Miniflare pipes workerd's stdout
 * into this Node process, the one that runs autocannon: every `request` log line
 * (docs/observability.md) is then a socket write that wakes the load generator's event loop on
 * the same 2 cores. On Cloudflare the runtime buffers a Worker's console output and Workers Logs
 * ships it after the invocation, away from the request path and from the client.
 *
 * `discard` (the default) starts workerd through a wrapper that points its stdout at /dev/null:
 * the Worker still builds and writes every line (console.log, the runtime's formatting, the write
 * syscall), and nothing reads it. `pipe` keeps Miniflare's pipe, for comparison. stderr (warnings
 * and errors) is Miniflare's pipe either way.
 */
import { WORKERD, wrapWorkerd } from './workerd-wrapper.mjs';

const WORKER_LOGS_MODES = ['discard', 'pipe'];

export function workerLogsMode(name = 'BENCH_WORKER_LOGS') {
  const mode = process.env[name] || 'discard';
  if (!WORKER_LOGS_MODES.includes(mode))
    throw new Error(`${name} must be ${WORKER_LOGS_MODES.join(' or ')}, got ${JSON.stringify(mode)}`);
  return mode;
}

/** For `discard`, makes every workerd Miniflare starts from now on write its stdout to /dev/null. */
export function routeWorkerLogs(mode, tmp) {
  if (mode === 'discard') wrapWorkerd(tmp, 'workerd-stdout-null.sh', `"${WORKERD}" "$@" >/dev/null`);
}
