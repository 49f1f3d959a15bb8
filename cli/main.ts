/**
 * `promptgate`: validate, push, pull, diff, history and rollback prompt files
 * against a gateway's admin API, manage its API keys (keys.ts) and read its
 * usage counts (usage.ts). Exit code
 * 0 on success, 1 on any failure, 2 on a usage error.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { canonical } from '../src/catalog/diff.js';
import { serializePrompt } from './serialize.js';
import { AdminClient, type PublishResult } from './api.js';
import { loadValidDir } from './fs-source.js';
import { loadValidSkills, pullSkills, pushSkills } from './skill-commands.js';
import { keysCommand, KeyUsageError } from './keys.js';
import { usageCommand, UsageCommandError } from './usage.js';

const USAGE = `promptgate <command> [options]

Commands:
  validate <dir>                    check prompt files and skill folders; errors name file, line and field
  push <dir> [--dry-run] [--prune]  publish the directory's prompts, then its skills (files first), each
                                    set atomically (--prune deletes prompts and skills not in it)
  pull <dir>                        write the published prompts and skills as files into <dir>
  diff <dir>                        what push --prune would change (prompts and skills), field by field
  history <name> [--skill]          every version of a prompt (or skill)
  rollback <name> <version> [--skill]
                                    republish an earlier version's exact text (or skill)
  keys create --name <name> [--group <g>]... [--scope <s>]... [--admin] [--expires-in-days <d>]
                                    mint an API key (printed once: store it)
  keys list                         every key, without secrets
  keys revoke <id>                  revoke a key at once
  usage [--since <when>] [--by prompt|client] [--json]
                                    prompts/get and completion/complete counts (since: ISO, epoch ms,
                                    or 90m / 24h / 7d ago; default 24h), as a table or the API's JSON

Options:
  --url <url>      gateway base URL   (or PROMPTGATE_URL; default http://127.0.0.1:8787)
  --token <token>  admin token or admin API key (or PROMPTGATE_TOKEN)
`;

class UsageError extends Error {}

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

/** Paths where two JSON values differ ("messages[0].content.text"). */
export function changedPaths(a: unknown, b: unknown, path = ''): string[] {
  if (canonical(a) === canonical(b)) return [];
  const isObj = (v: unknown) => typeof v === 'object' && v !== null;
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b)) return [path || '(whole record)'];
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].flatMap((k) => {
    const sub = Array.isArray(a) ? `${path}[${k}]` : path ? `${path}.${k}` : k;
    return changedPaths((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], sub);
  });
}

function printDiff(r: PublishResult, sources: Map<string, string>, dir: string): void {
  const where = (n: string) => (sources.has(n) ? `${dir}/${sources.get(n)}` : '(not in directory)');
  for (const n of r.diff.added) out(`  + ${n}  ${where(n)}`);
  for (const n of r.diff.changed) out(`  ~ ${n}  ${where(n)}`);
  for (const n of r.diff.removed) out(`  - ${n}`);
}

async function run(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      'dry-run': { type: 'boolean' },
      prune: { type: 'boolean' },
      skill: { type: 'boolean' },
      name: { type: 'string' },
      group: { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      admin: { type: 'boolean' },
      'expires-in-days': { type: 'string' },
      since: { type: 'string' },
      by: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const [command, ...args] = positionals;
  if (values.help || !command) return out(USAGE);
  const client = () => {
    const token = values.token ?? process.env.PROMPTGATE_TOKEN;
    if (!token) throw new UsageError('an admin token is required: --token or PROMPTGATE_TOKEN');
    return new AdminClient(values.url ?? process.env.PROMPTGATE_URL ?? 'http://127.0.0.1:8787', token);
  };
  const need = (n: number, what: string) => {
    if (args.length !== n) throw new UsageError(`usage: promptgate ${command} ${what}`);
  };

  switch (command) {
    case 'validate': {
      need(1, '<dir>');
      const { records } = loadValidDir(args[0]!);
      const skills = loadValidSkills(args[0]!);
      return out(`${records.length} prompt(s) and ${skills.records.length} skill(s) in ${args[0]}/ are valid`);
    }
    case 'push': {
      need(1, '<dir> [--dry-run] [--prune]');
      const dir = args[0]!;
      const { records, sources } = loadValidDir(dir);
      const skills = loadValidSkills(dir);
      const api = client();
      // Skills first: their files are uploaded and checked before anything is published.
      const pushed = await pushSkills(api, skills, { dryRun: values['dry-run'], prune: values.prune });
      printDiff(pushed.result, skills.sources, dir);
      const s = pushed.result.diff;
      out(
        `skills${values['dry-run'] ? ' (dry run)' : ''}: ${s.added.length} added, ${s.changed.length} changed, ${s.removed.length} deleted, ${s.unchanged.length} unchanged; ${pushed.uploaded} file(s) uploaded`,
      );
      const plan = await api.publish(records, { dryRun: true, prune: values.prune });
      printDiff(plan, sources, dir);
      const { added, changed, removed, unchanged } = plan.diff;
      if (values['dry-run'])
        return out(
          `dry run: ${added.length} to add, ${changed.length} to change, ${removed.length} to delete, ${unchanged.length} unchanged`,
        );
      if (!added.length && !changed.length && !removed.length)
        return out(`nothing to publish: ${unchanged.length} prompt(s) unchanged`);
      const done = await api.publish(records, { prune: values.prune });
      for (const [name, v] of Object.entries(done.versions))
        out(`  ✓ ${name} → version ${v}${sources.has(name) ? `  (${dir}/${sources.get(name)})` : ' (deleted)'}`);
      const d = done.diff;
      return out(
        `published generation ${done.generation}: ${d.added.length} added, ${d.changed.length} changed, ${d.removed.length} deleted, ${d.unchanged.length} unchanged`,
      );
    }
    case 'pull': {
      need(1, '<dir>');
      const prompts = await client().list();
      for (const p of prompts) {
        const { _version: _v, _updatedAt: _u, ...record } = p;
        const file = serializePrompt(record);
        for (const a of [{ path: file.path, bytes: new TextEncoder().encode(file.text) }, ...file.assets]) {
          mkdirSync(dirname(join(args[0]!, a.path)), { recursive: true });
          writeFileSync(join(args[0]!, a.path), a.bytes);
        }
        out(`  ${p.name} (version ${p._version}) → ${args[0]}/${file.path}`);
      }
      const skills = await pullSkills(client(), args[0]!, out);
      return out(`pulled ${prompts.length} prompt(s) and ${skills} skill(s)`);
    }
    case 'diff': {
      need(1, '<dir>');
      const { records, sources } = loadValidDir(args[0]!);
      const skills = loadValidSkills(args[0]!);
      const api = client();
      const plans = [
        {
          plan: await api.publish(records, { dryRun: true, prune: true }),
          sources,
          local: records,
          remote: await api.list(),
        },
        {
          plan: await api.publishSkills(skills.records, { dryRun: true, prune: true }),
          sources: skills.sources,
          local: skills.records,
          remote: await api.listSkills(),
        },
      ];
      let same = true;
      for (const p of plans) {
        const remote = new Map(p.remote.map(({ _version: _v, _updatedAt: _u, ...r }) => [r.name, r]));
        const local = new Map(p.local.map((r) => [r.name, r]));
        printDiff(p.plan, p.sources, args[0]!);
        for (const n of p.plan.diff.changed) out(`    ${n}: ${changedPaths(remote.get(n), local.get(n)).join(', ')}`);
        same &&= !p.plan.diff.added.length && !p.plan.diff.changed.length && !p.plan.diff.removed.length;
      }
      if (same) out('no differences');
      return;
    }
    case 'history': {
      need(1, '<name>');
      const api = client();
      for (const v of values.skill ? await api.skillHistory(args[0]!) : await api.history(args[0]!)) {
        const by = v.by ? `  by ${v.by}` : '';
        out(`  v${v.version}  ${v.createdAt}  generation ${v.generation}${by}${v.deleted ? '  (deleted)' : ''}`);
      }
      return;
    }
    case 'rollback': {
      need(2, '<name> <version>');
      const version = Number(args[1]);
      if (!Number.isInteger(version) || version < 1) throw new UsageError('version must be a positive integer');
      const api = client();
      const r = values.skill ? await api.rollbackSkill(args[0]!, version) : await api.rollback(args[0]!, version);
      return out(
        `${args[0]} restored from version ${version} as version ${Object.hasOwn(r.versions, args[0]!) ? r.versions[args[0]!] : '(unchanged: already current)'}`,
      );
    }
    case 'keys':
      return keysCommand(client, args, values, out);
    case 'usage':
      return usageCommand(client, args, values, out);
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

export async function main(argv: string[]): Promise<number> {
  try {
    await run(argv);
    return 0;
  } catch (e) {
    process.stderr.write(`promptgate: ${e instanceof Error ? e.message : String(e)}\n`);
    return e instanceof UsageError ||
      e instanceof KeyUsageError ||
      e instanceof UsageCommandError ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
      ? 2
      : 1;
  }
}
