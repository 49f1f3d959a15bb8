/**
 * `promptgate`: the command line, its options and its exit codes (0 on
 * success, 1 on any failure, 2 on a usage error; `diff --exit-code` 1 when
 * there is a difference). Each command lives with
 * its kind: prompt directories (with their skills, through
 * skill-commands.ts) in prompt-commands.ts and pull.ts, API keys in keys.ts, usage
 * counts in usage.ts; history and rollback are here.
 */
import { parseArgs } from 'node:util';
import { AdminClient, UsageError } from './api.js';
import { keysCommand } from './keys.js';
import { diffCommand, pushCommand, validateCommand } from './prompt-commands.js';
import { pullCommand } from './pull.js';
import { usageCommand } from './usage.js';
import { SKILL_NAME } from '../src/catalog/skills/validate.js';
import { NAME_PATTERN } from '../src/catalog/validate.js';

const USAGE = `promptgate <command> [options]

Commands:
  validate <dir>                    check prompt files and skill folders; errors name file, line and field
  push <dir> [--dry-run] [--prune]  publish the directory's skills (files first), then its prompts, each
                                    set atomically (--prune deletes prompts and skills not in it)
  pull <dir> [--replace]            write the published prompts and skills as files into <dir>, which must
                                    be empty or new; --replace updates an earlier pull there (the files it
                                    wrote that are no longer published are removed), and refuses if <dir>
                                    holds other files, or ones changed since and not what is published
  diff <dir> [--exit-code]          what push --prune would change (prompts and skills), field by field;
                                    --exit-code exits 1 when there is a difference, 0 when there is none
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

/**
 * The options each command reads, besides --url, --token and --help. Any other is a usage error,
 * never ignored: `rollback x 3 --dry-run` must not roll back for real (the admin API refuses a
 * flag a write would ignore likewise, docs/publishing.md).
 */
const OPTIONS_OF: Readonly<Record<string, readonly string[]>> = {
  validate: [],
  push: ['dry-run', 'prune'],
  pull: ['replace'],
  diff: ['exit-code'],
  history: ['skill'],
  rollback: ['skill'],
  'keys create': ['name', 'group', 'scope', 'admin', 'expires-in-days'],
  'keys list': [],
  'keys revoke': [],
  usage: ['since', 'by', 'json'],
};
const COMMON = new Set(['url', 'token', 'help']);

function checkOptions(command: string, args: readonly string[], given: readonly string[]): void {
  const key = command === 'keys' ? `keys ${args[0] ?? ''}` : command;
  const allowed = OPTIONS_OF[key];
  // An unknown command or keys subcommand gets its own usage error below.
  if (!allowed) return;
  const stray = given.filter((o) => !COMMON.has(o) && !allowed.includes(o));
  if (stray.length)
    throw new UsageError(`${stray.map((o) => `--${o}`).join(', ')} does not apply to ${key}; nothing was done`);
}

/** A name checked here, so `history .` is not sent as a path the URL parser folds into another route. */
function nameOf(name: string, skill: boolean | undefined): string {
  if (!(skill ? SKILL_NAME : NAME_PATTERN).test(name))
    throw new UsageError(`${JSON.stringify(name.slice(0, 80))} is not a ${skill ? 'skill' : 'prompt'} name`);
  return name;
}

const out = (s: string): void => {
  process.stdout.write(`${s}\n`);
};

/** The exit code a command chose (`diff --exit-code`); none is 0. */
async function run(argv: string[]): Promise<number | void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      'dry-run': { type: 'boolean' },
      prune: { type: 'boolean' },
      replace: { type: 'boolean' },
      'exit-code': { type: 'boolean' },
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
  checkOptions(command, args, Object.keys(values));
  const client = () => {
    const token = values.token ?? process.env.PROMPTGATE_TOKEN;
    if (!token) throw new UsageError('an admin token is required: --token or PROMPTGATE_TOKEN');
    return new AdminClient(values.url ?? process.env.PROMPTGATE_URL ?? 'http://127.0.0.1:8787', token);
  };
  const need = (n: number, what: string) => {
    if (args.length !== n) throw new UsageError(`usage: promptgate ${command} ${what}`);
  };

  switch (command) {
    case 'validate':
      need(1, '<dir>');
      return validateCommand(args[0]!, out);
    case 'push':
      need(1, '<dir> [--dry-run] [--prune]');
      return pushCommand(client, args[0]!, { dryRun: values['dry-run'], prune: values.prune }, out);
    case 'pull':
      need(1, '<dir> [--replace]');
      return pullCommand(client, args[0]!, { replace: values.replace }, out);
    case 'diff': {
      need(1, '<dir> [--exit-code]');
      const same = await diffCommand(client, args[0]!, out);
      return values['exit-code'] && !same ? 1 : 0;
    }
    case 'history': {
      need(1, '<name>');
      const name = nameOf(args[0]!, values.skill);
      const api = client();
      for (const v of values.skill ? await api.skillHistory(name) : await api.history(name)) {
        const by = v.by ? `  by ${v.by}` : '';
        out(`  v${v.version}  ${v.createdAt}  generation ${v.generation}${by}${v.deleted ? '  (deleted)' : ''}`);
      }
      return;
    }
    case 'rollback': {
      need(2, '<name> <version>');
      nameOf(args[0]!, values.skill);
      // Digits only: Number() also reads 1e1, 0x3 and 3.0, which would roll back to a version never typed.
      const version = /^[0-9]+$/.test(args[1]!) ? Number(args[1]) : NaN;
      if (!Number.isSafeInteger(version) || version < 1)
        throw new UsageError(
          `version must be a positive integer (digits only), not ${JSON.stringify(args[1]!.slice(0, 80))}`,
        );
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
    return (await run(argv)) ?? 0;
  } catch (e) {
    process.stderr.write(`promptgate: ${e instanceof Error ? e.message : String(e)}\n`);
    return e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') ? 2 : 1;
  }
}
