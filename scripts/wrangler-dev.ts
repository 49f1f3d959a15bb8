/**
 * `wrangler dev` for the gateway, without the DevTools inspector: the same
 * local runtime (wrangler's dev environment, Miniflare, workerd, local KV and
 * Durable Objects), started through wrangler's own API so that
 * `dev.inspector` can be `false`, which the CLI cannot say.
 *
 * Why: with the inspector on, wrangler's InspectorProxyWorker enables the
 * inspector's Network domain and forwards every event to wrangler's Node
 * process as its own HTTP request, unawaited, and a failed forward sends one
 * more. A Worker subrequest body yields one `Network.dataReceived` event per
 * 4 KiB, so each upstream reply read to the 4 MiB cap (body.ts) fired about
 * 1,000 requests at once: two such upstreams and a few refreshes had local
 * workerd holding 4,000-12,000 loopback sockets, then `Too many open files`,
 * and the gateway hung until restart (issue 11). Deployed Workers have no
 * inspector; this only concerns local runs. Attach DevTools with plain
 * `npx wrangler dev` when you need them.
 *
 *   tsx scripts/wrangler-dev.ts [--ip 127.0.0.1] [--port 8787] [--persist-to DIR] [--var NAME:VALUE]...
 */
import { createServer } from 'node:net';
import { unstable_startWorker } from 'wrangler';

function parse(argv: string[]): { ip: string; port: number; persist?: string; vars: Record<string, string> } {
  const out = {
    ip: '127.0.0.1',
    port: 8787,
    persist: undefined as string | undefined,
    vars: {} as Record<string, string>,
  };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === '--ip') out.ip = value;
    else if (flag === '--port') out.port = Number(value);
    else if (flag === '--persist-to') out.persist = value;
    else if (flag === '--var') {
      const colon = value.indexOf(':');
      if (colon <= 0) throw new Error(`--var wants NAME:VALUE, got ${value}`);
      out.vars[value.slice(0, colon)] = value.slice(colon + 1);
    } else throw new Error(`unknown option ${flag} (this launcher takes --ip, --port, --persist-to and --var)`);
    i++;
  }
  return out;
}

/**
 * wrangler's API does not give up when workerd cannot bind the port (the CLI
 * exits): say so and exit, like the CLI, instead of hanging.
 */
async function ensureFree(host: string, port: number): Promise<void> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new Error(`Address already in use: ${host}:${port} (EADDRINUSE)`) : e),
    );
    probe.listen(port, host, () => resolve());
  });
  await new Promise((r) => probe.close(r));
}

const args = parse(process.argv.slice(2));
await ensureFree(args.ip, args.port);
const worker = await unstable_startWorker({
  config: 'wrangler.toml',
  bindings: Object.fromEntries(
    Object.entries(args.vars).map(([k, v]) => [k, { type: 'plain_text' as const, value: v }]),
  ),
  dev: {
    remote: false,
    inspector: false,
    server: { hostname: args.ip, port: args.port },
    ...(args.persist ? { persist: args.persist } : {}),
  },
});
await worker.ready;
console.log(`Ready on ${(await worker.url).origin}`);

let stopping = false;
const stop = () => {
  if (stopping) return;
  stopping = true;
  void worker.dispose().finally(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
