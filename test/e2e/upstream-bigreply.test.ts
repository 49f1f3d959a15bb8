/**
 * Huge and endless upstream replies served to a local gateway at once (issue
 * 11, item 7: "a 100,000-prompt (45 MB) listing took the local gateway down
 * until restart"): two 45 MB listings, an endless JSON body and an endless
 * SSE event, beside a healthy upstream. The gateway must answer the list
 * with the healthy prompts, mark each heavy upstream `too_large`, keep the
 * open file descriptors of its processes bounded across refreshes, and still
 * serve a normal request afterwards.
 *
 * The Worker stops reading at the 4 MiB cap either way; what took the local
 * gateway down was wrangler's DevTools inspector, which turned each 4 KiB
 * the Worker read into one HTTP request to wrangler's Node process (see
 * scripts/wrangler-dev.ts). With the plain `wrangler dev` CLI
 * (`startGateway({ devtools: true })`) this test fails: workerd held
 * 5,000-12,700 loopback sockets, and lists, refreshes and gets failed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptedServer, type Behaviour, type Scripted } from '../helpers/fault-servers.js';
import { startGateway, type Gateway } from '../helpers/wrangler-dev.js';

/** Generous: this test is about bytes and sockets; reading four replies to the cap at once on a loaded machine can pass 1 s. */
const TIMEOUT = 10_000;
const FD_BOUND = 500;
const HEAVY: Record<string, Behaviour> = {
  huge: 'huge',
  huge2: 'huge',
  endless: 'endless',
  endless_sse: 'endless_sse',
};
/** Failed listings before the breaker opens (upstream-object.ts BREAKER_THRESHOLD): each a full read to the cap. */
const LISTINGS = 3;

/** Open file descriptors of each process in the gateway's process group (wrangler, esbuild, both workerd). */
function fdsByProcess(pgid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== pgid) continue;
      out[`${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}:${pid}`] = readdirSync(`/proc/${pid}/fd`).length;
    } catch {
      // The process ended meanwhile.
    }
  }
  return out;
}

let gw: Gateway;
let fine: Scripted;
const heavy: Record<string, Scripted> = {};
/** The most descriptors any one process of the gateway held, sampled while requests run, and where. */
const peak = { fds: 0, where: '' };
let sampler: ReturnType<typeof setInterval> | undefined;

function sample(): void {
  for (const [proc, n] of Object.entries(fdsByProcess(gw.pgid)))
    if (n > peak.fds) Object.assign(peak, { fds: n, where: proc });
}

const lists = (s: Scripted) => s.seen.filter((r) => r.rpc === 'prompts/list').length;

/**
 * One request, sent again (a few times, counted) when the local runtime answered 503 or not at all.
 * On a slow machine wrangler dev's runtime may restart while four replies are read to the cap
 * ("restarted mid-request", a 503 that says to send the request again), and a request caught in
 * the restart may get no answer; the gateway's own answers are what the assertions check.
 */
let resent = 0;
async function resending(path: string, init: RequestInit = {}): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    const last = attempt === 3;
    try {
      const res = await fetch(`${gw.url}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
      if (res.status !== 503 || last) return res;
      await res.body?.cancel();
    } catch (e) {
      if (last) throw e;
    }
    resent++;
  }
}

async function refresh(): Promise<Record<string, { ok: boolean; error?: string; ms?: number }>> {
  const res = await resending('/admin/upstreams/refresh', {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}` },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { upstreams: Record<string, { ok: boolean; error?: string; ms?: number }> }).upstreams;
}

async function v1(): Promise<Client> {
  const client = new Client({ name: 'bigreply-e2e', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl)));
  return client;
}

beforeAll(async () => {
  fine = await scriptedServer({ prompts: [{ name: 'fine' }] });
  for (const [id, b] of Object.entries(HEAVY))
    heavy[id] = await scriptedServer({ prompts: [{ name: 'p' }], list: b, get: b });
  const upstreams = [
    { id: 'fine', url: fine.url, timeout: TIMEOUT },
    ...Object.keys(HEAVY).map((id) => ({ id, url: heavy[id]!.url, timeout: TIMEOUT })),
  ];
  gw = await startGateway({
    pageSize: 100,
    vars: { UPSTREAMS: JSON.stringify(upstreams), UPSTREAM_ALLOW_HTTP_LOOPBACK: 'true' },
  });
  // Reading /proc is cheap; the sockets of a storm pile up over seconds, so 100 ms catches them.
  sampler = setInterval(sample, 100);
}, 120_000);

afterAll(async () => {
  clearInterval(sampler);
  const counts = Object.fromEntries(
    Object.entries(heavy).map(([id, s]) => [id, { lists: lists(s), ...s.connections() }]),
  );
  console.log(
    `huge/endless upstreams: peak fds ${peak.fds} (${peak.where}); requests resent after a 503 or no answer: ${resent}; per upstream ${JSON.stringify(counts)}`,
  );
  await gw?.stop();
  await Promise.all([fine, ...Object.values(heavy)].filter(Boolean).map((s) => s.close()));
});

describe('huge and endless upstream replies, four at once, under wrangler dev', () => {
  it('prompts/list answers with the healthy prompts; /status marks each heavy upstream too_large', async () => {
    const client = await v1();
    const { prompts } = await client.listPrompts(undefined, { timeout: 30_000 });
    const names = prompts.map((p) => p.name);
    expect(names).toContain('fine.fine');
    for (const id of Object.keys(HEAVY))
      expect(
        names.some((n) => n.startsWith(`${id}.`)),
        id,
      ).toBe(false);
    await client.close();
    sample();
    const status = async () => {
      const res = await resending('/status');
      expect(res.status).toBe(200);
      return Object.fromEntries(
        ((await res.json()) as { upstreams: { id: string; state: string; fault: string | null }[] }).upstreams.map(
          (u) => [u.id, u],
        ),
      );
    };
    // The upstream objects record their own listing in the background after the cold list: wait for that event (bounded).
    let ups = await status();
    for (let i = 0; i < 100 && Object.keys(HEAVY).some((id) => ups[id]?.fault !== 'too_large'); i++) {
      await new Promise((r) => setTimeout(r, 200));
      ups = await status();
    }
    for (const id of Object.keys(HEAVY)) expect(ups[id], id).toMatchObject({ state: 'failing', fault: 'too_large' });
    expect(ups.fine).toMatchObject({ state: 'healthy' });
    expect(peak.fds).toBeLessThan(FD_BOUND);
  }, 120_000);

  it('open file descriptors stay bounded while every heavy upstream is read to the cap again and again', async () => {
    // Refresh until each heavy upstream has been listed (and cut at the cap) LISTINGS times; then its breaker answers.
    for (let i = 0; i < LISTINGS + 2 && Object.values(heavy).some((s) => lists(s) < LISTINGS); i++) {
      const r = await refresh();
      sample();
      expect(r.fine).toMatchObject({ ok: true, prompts: 1 });
      for (const id of Object.keys(HEAVY)) expect(r[id]!.error, id).toMatch(/^too_large: /);
      expect(peak.fds, peak.where).toBeLessThan(FD_BOUND);
    }
    for (const [id, s] of Object.entries(heavy)) expect(lists(s), id).toBeGreaterThanOrEqual(LISTINGS);
    expect(peak.fds, peak.where).toBeLessThan(FD_BOUND);
  });

  it('the gateway still answers a normal request afterwards', async () => {
    const client = await v1();
    const got = await client.getPrompt({ name: 'fine.fine' }, { timeout: 30_000 });
    expect(got.messages[0]!.content).toEqual({ type: 'text', text: 'scripted fine' });
    await client.close();
    sample();
    expect(peak.fds, peak.where).toBeLessThan(FD_BOUND);
    // Without the inspector the Worker's own logs still reach the terminal (workerd's stdout).
    expect(gw.output()).toMatch(/"msg":"upstream list failed","upstream":"huge"/);
  });
});
