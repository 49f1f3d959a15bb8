/**
 * `promptgate keys create|list|revoke`: API keys through the admin API. The
 * secret is printed once, at creation, with a warning; nothing else ever
 * shows it again (the gateway keeps only its hash).
 */
import { KEY_ID_PATTERN, KEY_PREFIX } from '../src/catalog/keys-table.js';
import { printable } from '../src/lib/clip.js';
import { UsageError, type AdminClient, type KeyInfo, type NewKey } from './api.js';

export interface KeyOptions {
  name?: string;
  group?: string[];
  scope?: string[];
  admin?: boolean;
  'expires-in-days'?: string;
}

export const KEYS_USAGE = `usage: promptgate keys create --name <name> [--group <g>]... [--scope <s>]... [--admin] [--expires-in-days <d>]
       promptgate keys list
       promptgate keys revoke <id>`;

/**
 * Rows under a header, each column as wide as its widest cell. Cells are the gateway's text, some of
 * it a caller's (a client's name in usage): each control character shows as `\xNN`, never reaching
 * the terminal as an escape sequence.
 */
export function table(header: string[], rawRows: string[][]): string[] {
  const rows = rawRows.map((r) => r.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `  ${cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}`;
  return [line(header), ...rows.map(line)];
}

function status(k: KeyInfo, now: number): string {
  if (k.revokedAt) return 'revoked';
  if (k.expiresAt && Date.parse(k.expiresAt) <= now) return 'expired';
  return 'active';
}

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '-');

function keyRows(keys: KeyInfo[]): string[] {
  const now = Date.now();
  return table(
    ['ID', 'NAME', 'GROUPS', 'SCOPES', 'ADMIN', 'CREATED', 'BY', 'EXPIRES', 'STATUS'],
    keys.map((k) => [
      k.id,
      k.name,
      k.groups.join(',') || '-',
      k.scopes?.join(',') ?? '(read)',
      k.admin ? 'yes' : 'no',
      day(k.createdAt),
      k.createdBy,
      day(k.expiresAt),
      status(k, now),
    ]),
  );
}

export async function keysCommand(
  api: () => AdminClient,
  args: string[],
  opts: KeyOptions,
  out: (s: string) => void,
): Promise<void> {
  const [sub, ...rest] = args;
  switch (sub) {
    case 'create': {
      if (rest.length || !opts.name) throw new UsageError(KEYS_USAGE);
      const req: NewKey = { name: opts.name };
      if (opts.group?.length) req.groups = opts.group;
      if (opts.scope?.length) req.scopes = opts.scope;
      if (opts.admin) req.admin = true;
      if (opts['expires-in-days'] !== undefined) {
        const days = Number(opts['expires-in-days']);
        if (!Number.isFinite(days) || days <= 0) throw new UsageError('--expires-in-days must be a positive number');
        req.expiresInDays = days;
      }
      const made = await api().createKey(req);
      out(`created key ${made.id} (${printable(made.name)})${made.expiresAt ? `, expires ${made.expiresAt}` : ''}`);
      out('');
      out(`  ${made.key}`);
      out('');
      out('Store this key now: it is shown only once, and the gateway keeps only its hash.');
      return;
    }
    case 'list': {
      if (rest.length) throw new UsageError(KEYS_USAGE);
      const { keys, omitted } = await api().listKeys();
      if (!keys.length) return out('no keys');
      for (const l of keyRows(keys)) out(l);
      if (omitted) out(`(${omitted} older revoked or expired keys not listed)`);
      return;
    }
    case 'revoke': {
      if (rest.length !== 1) throw new UsageError(KEYS_USAGE);
      // Never sent: a key given where its id belongs would travel, and be logged, as a path.
      if (rest[0]!.startsWith(KEY_PREFIX))
        throw new UsageError("that is the key itself, not its id: `promptgate keys list` shows each key's id");
      if (!KEY_ID_PATTERN.test(rest[0]!)) throw new UsageError(`a key id is 16 hex digits\n${KEYS_USAGE}`);
      const k = await api().revokeKey(rest[0]!);
      return out(`revoked key ${k.id} (${printable(k.name)}) at ${k.revokedAt}`);
    }
    default:
      throw new UsageError(KEYS_USAGE);
  }
}
