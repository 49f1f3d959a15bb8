/**
 * A `wrangler dev` gateway with one local prompt (summarize) and upstreams it has never listed:
 * ready when /status answers (the catalog page would list them first), each upstream reached on
 * loopback with a 3 s timeout and not polled during a test. For the e2e suites of the cold path.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROJECT_ROOT, startGateway, type Gateway } from './wrangler-dev.js';

export interface ColdUpstream {
  readonly id: string;
  readonly url: string;
  readonly prefix?: string;
}

/** The gateway; its `stop` also removes the prompt directory made for it. */
export async function coldUpstreamGateway(
  upstreams: ColdUpstream[],
  opts: { pageSize?: number; vars?: Record<string, string | number> } = {},
): Promise<Gateway> {
  const dir = mkdtempSync(join(tmpdir(), 'cold-upstream-'));
  copyFileSync(join(PROJECT_ROOT, 'prompts', 'summarize.md'), join(dir, 'summarize.md'));
  try {
    const gw = await startGateway({
      promptsDir: dir,
      ...(opts.pageSize !== undefined && { pageSize: opts.pageSize }),
      readyPath: '/status',
      vars: {
        UPSTREAMS: JSON.stringify(upstreams.map((u) => ({ ...u, timeout: 3000 }))),
        UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true',
        UPSTREAM_POLL_MS: 60_000,
        ...opts.vars,
      },
    });
    return {
      ...gw,
      stop: async () => {
        await gw.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
