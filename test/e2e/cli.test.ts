/**
 * The promptgate CLI against a real `wrangler dev`: push shows the diff and
 * per-file progress, an SDK client sees the new prompts and exactly one
 * list_changed per publish; invalid sets publish nothing; history, rollback,
 * pull and diff round-trip.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedQuiet, feedState, streamWatch, waitUntil } from '../helpers/live.js';
import { runCli } from '../helpers/cli.js';
import { PART_PROMPTS } from '../../cli/parts.js';
import { PROJECT_ROOT, startGateway, type Gateway } from '../helpers/wrangler-dev.js';

let gw: Gateway;
let work: string;
let client: Client;
let notifications = 0;

const cli = (...args: string[]) => runCli(gw, ...args);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A deliberate absence window, not a wait for an event: quiet for a whole coalescing window plus
 * fan-out, only to check that nothing MORE arrives (load can only hide, never invent, an extra).
 */
async function settle(): Promise<number> {
  await sleep(1200);
  return notifications;
}

/** Waits for the n-th notification (an event, however slow the machine), then checks nothing more arrives. */
async function notifiedTo(n: number): Promise<number> {
  // Bounded; on a timeout the caller's assertion on the count reports it.
  await waitUntil(() => notifications >= n, `notification ${n}`).catch(() => {});
  return settle();
}

/** The count once every change queued so far is fanned out (an event in GET /status, no delay). */
async function quiet(): Promise<number> {
  await feedQuiet(gw.url);
  return notifications;
}

beforeAll(async () => {
  gw = await startGateway();
  work = mkdtempSync(join(tmpdir(), 'promptgate-cli-'));
  cpSync(join(PROJECT_ROOT, 'prompts'), join(work, 'prompts'), { recursive: true });
  // The start-up publish is fanned out before the client exists; its GET stream is open before the
  // first test publishes: the count starts at zero, with no delay assumed.
  await feedQuiet(gw.url);
  client = new Client({ name: 'cli-e2e', version: '1' });
  client.setNotificationHandler(PromptListChangedNotificationSchema, () => void notifications++);
  const watch = streamWatch();
  await client.connect(new StreamableHTTPClientTransport(new URL(gw.mcpUrl), { fetch: watch.fetch }));
  await watch.attached();
});

afterAll(async () => {
  await client?.close();
  await gw?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('promptgate CLI', () => {
  it('push: diff, progress per file, summary; the client sees it, notified once', async () => {
    writeFileSync(
      join(work, 'prompts', 'release_notes.md'),
      '---\nname: release_notes\ntitle: Release notes\narguments:\n  - name: changes\n    required: true\n---\n\n## user\n\nWrite release notes for:\n\n{{changes}}\n',
    );
    const before = await quiet();
    expect(before).toBe(0);
    const r = await cli('push', join(work, 'prompts'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('+ release_notes');
    expect(r.stdout).toMatch(/✓ release_notes → version 1/);
    expect(r.stdout).toMatch(/published generation \d+: 1 added, 0 changed, 0 deleted, 7 unchanged/);
    expect(await notifiedTo(before + 1)).toBe(before + 1);
    const names = (await client.listPrompts()).prompts.map((p) => p.name);
    expect(names).toContain('release_notes');
    const got = await client.getPrompt({ name: 'release_notes', arguments: { changes: 'fixed the flux capacitor' } });
    expect(JSON.stringify(got.messages)).toContain('fixed the flux capacitor');
  });
  it('push of an unchanged directory publishes nothing and notifies nobody', async () => {
    const before = await quiet();
    const feed = await feedState(gw.url);
    const r = await cli('push', join(work, 'prompts'));
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('nothing to publish');
    // Nothing was queued for announcement (a notification needs one), and none arrives.
    expect(await feedState(gw.url)).toEqual(feed);
    expect(await settle()).toBe(before);
  });
  it('a set with one invalid file publishes nothing; validate and push exit non-zero naming file and line', async () => {
    const bad = join(work, 'bad');
    cpSync(join(work, 'prompts'), bad, { recursive: true });
    writeFileSync(
      join(bad, 'summarize.md'),
      readFileSync(join(bad, 'summarize.md'), 'utf8') + '\n## user\nuses {{nope}}\n',
    );
    writeFileSync(join(bad, 'zz_new.md'), '---\nname: zz_new\n---\n## user\nnew and valid\n');
    const v = await cli('validate', bad);
    expect(v.code).toBe(1);
    expect(v.stderr).toMatch(
      /summarize\.md:\d+: messages\[\d+\]\.content: placeholder \{\{nope\}\} names no declared argument/,
    );
    const before = await quiet();
    const feed = await feedState(gw.url);
    const p = await cli('push', bad);
    expect(p.code).toBe(1);
    // The directory is checked before the token is asked for: its error is what a user sees first.
    for (const command of ['push', 'diff']) {
      const noToken = await cli(command, bad, '--token', '');
      expect(noToken.code, command).toBe(1);
      expect(noToken.stderr, command).toMatch(/summarize\.md:\d+: /);
    }
    expect(await feedState(gw.url)).toEqual(feed);
    expect(await settle()).toBe(before);
    expect((await client.listPrompts()).prompts.map((x) => x.name)).not.toContain('zz_new');
  });
  it('history and rollback restore the exact text; pull then diff shows no differences', async () => {
    const file = join(work, 'prompts', 'summarize.md');
    const original = (await client.getPrompt({ name: 'summarize', arguments: { text: 'T' } })).messages;
    writeFileSync(file, readFileSync(file, 'utf8').replace(/## user\n/, '## user\n\nPlease be brief.\n\n'));
    expect((await cli('push', join(work, 'prompts'))).code).toBe(0);
    const h = await cli('history', 'summarize');
    expect(h.stdout).toMatch(/v1 .*\n.*v2 /);
    const rb = await cli('rollback', 'summarize', '1');
    expect(rb.code, rb.stderr).toBe(0);
    expect(rb.stdout).toContain('restored from version 1 as version 3');
    await notifiedTo(notifications + 1);
    expect((await client.getPrompt({ name: 'summarize', arguments: { text: 'T' } })).messages).toEqual(original);
    const pulled = join(work, 'pulled');
    expect((await cli('pull', pulled)).code).toBe(0);
    const d = await cli('diff', pulled);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('no differences');
  });
  it('a wrong token fails with 401 and writes nothing; usage errors exit 2', async () => {
    const r = await cli('push', join(work, 'prompts'), '--token', 'wrong');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('HTTP 401');
    expect((await cli('rollback', 'summarize')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
    // Each command's own usage errors exit 2 as well, before any request.
    for (const args of [['keys', 'frobnicate'], ['keys', 'create'], ['usage', '--by', 'day'], ['push']]) {
      const u = await cli(...args);
      expect(u.code, args.join(' ')).toBe(2);
      expect(u.stderr, args.join(' ')).toContain('usage');
    }
  });
  it('push --prune of a set larger than one request publishes it in parts, as one change', async () => {
    const big = join(work, 'big');
    cpSync(join(work, 'prompts'), big, { recursive: true });
    const extra = PART_PROMPTS + 150;
    for (let i = 0; i < extra; i++)
      writeFileSync(join(big, `bulk_${i}.md`), `---\nname: bulk_${i}\n---\n## user\nbulk prompt ${i}\n`);
    const before = await quiet();
    const r = await cli('push', big, '--prune');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`published generation \\d+: ${extra} added, \\d+ changed, 0 deleted`));
    // One change, one notification, however many parts it took.
    expect(await notifiedTo(before + 1)).toBe(before + 1);
    let names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listPrompts(cursor === undefined ? {} : { cursor });
      names = names.concat(page.prompts.map((p) => p.name));
      cursor = page.nextCursor;
    } while (cursor);
    expect(names).toContain(`bulk_${extra - 1}`);
    expect(names.filter((n) => n.startsWith('bulk_'))).toHaveLength(extra);
    // The dry run and the publish shared one upload, and neither left one open: the same again is no change.
    const again = await cli('push', big, '--prune');
    expect(again.stdout).toContain('nothing to publish');
    const open = await fetch(`${gw.url}/admin/uploads`, { headers: { authorization: `Bearer ${gw.adminToken}` } });
    expect(((await open.json()) as any).uploads).toEqual([]);
    // The gateway lists them a page at a time (1,000 a page); pull follows the pages and loses none.
    const pulled = join(work, 'pulled-big');
    const pull = await cli('pull', pulled);
    expect(pull.code, pull.stderr).toBe(0);
    expect(pull.stdout).toMatch(new RegExp(`pulled ${names.length} prompt`));
    expect(readdirSync(pulled).filter((f) => f.startsWith('bulk_'))).toHaveLength(extra);
    // Back to the small set: the removals fit in one request.
    const back = await cli('push', join(work, 'prompts'), '--prune');
    expect(back.stdout).toMatch(new RegExp(`0 added, 0 changed, ${extra} deleted`));
  });
});
