/**
 * Starting the targets a harness measures: a Miniflare instance (gateway or ceiling) with the
 * pid of its own workerd process, and the SDK peer (targets/peer.mjs) as a child process.
 * Both are registered for disposal.
 */
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { BENCH_DIR } from './paths.mjs';
import { workerdChildren } from './proc.mjs';

/**
 * Starts one Miniflare instance; resolves { mf, pid, url (of /mcp), dispose }. Start them one
 * at a time: the new workerd pid is how its CPU is found.
 */
export async function startMiniflare(h, options, name) {
  const before = workerdChildren();
  const mf = new Miniflare(options);
  const untrack = h.onCleanup(name, () => mf.dispose());
  const url = await mf.ready;
  const pid = [...workerdChildren()].find((p) => !before.has(p));
  return {
    mf,
    pid,
    url: new URL('/mcp', url).href,
    dispose: async () => {
      untrack();
      await mf.dispose();
    },
  };
}

/** The official SDK McpServer, stateless, on node:http; resolves { url (of /mcp), pid }. `args`: `--tools`. */
export async function startPeer(h, args = []) {
  const { child, port } = await h.startPortChild([join(BENCH_DIR, 'targets', 'peer.mjs'), ...args], 'peer');
  return { url: `http://127.0.0.1:${port}/mcp`, pid: child.pid };
}
