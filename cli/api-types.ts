/**
 * What the admin client (api.ts) speaks in: its errors, and the shapes of what it sends and gets
 * (ANSWERS: what each answer must hold before a command reads it).
 */
import type { SetDiff } from '../src/catalog/diff.js';

/** A failure the CLI reports and exits 1 on. */
export class CliError extends Error {
  constructor(
    message: string,
    /** A write that got no answer, or a 5xx: the gateway may have recorded it all the same. */
    readonly mayHaveApplied = false,
  ) {
    super(message);
  }
}

type Kind = 'string' | 'number' | 'boolean' | 'object' | 'array';
/** A field of an answer: its kind (`?`: may be absent or null), an object's shape, or `[item]`, a list of items. */
export type Field = Kind | `${Kind}?` | Shape | [Field];
/** What an answer must hold for the CLI to use it (answer.ts checks it). */
export interface Shape {
  [field: string]: Field;
}

/** A command line the CLI cannot run (exit code 2): the message says how to write it. */
export class UsageError extends Error {}

export interface PublishResult {
  ok: true;
  generation: number;
  diff: SetDiff;
  versions: Record<string, number>;
  dryRun: boolean;
}

export interface NewKey {
  name: string;
  groups?: string[];
  scopes?: string[];
  admin?: boolean;
  expiresInDays?: number;
}

/** A prompt set ready to publish (AdminClient.stage). */
export interface StagedSet {
  publish(opts: PublishOptions): Promise<PublishResult>;
  discard(): Promise<void>;
}

export interface PublishOptions {
  dryRun?: boolean;
  prune?: boolean;
}

/**
 * What each answer must hold for the command that reads it (answer.ts checks): the fields it
 * prints or uses, no more, so a gateway that adds a field answers as well as before.
 */
const names: Field = ['string'];
const DIFF: Shape = { added: names, changed: names, removed: names, unchanged: names };
const KEY: Shape = {
  id: 'string',
  name: 'string',
  groups: names,
  scopes: 'array?',
  admin: 'boolean',
  createdAt: 'string',
  createdBy: 'string',
  expiresAt: 'string?',
  revokedAt: 'string?',
};
const LISTED: Shape = { name: 'string', _version: 'number' };

export const ANSWERS = {
  published: { generation: 'number', diff: DIFF, versions: 'object' },
  upload: { upload: { id: 'string' } },
  prompts: { prompts: [LISTED], generation: 'number', next: 'string?' },
  skills: {
    skills: [{ ...LISTED, files: [{ path: 'string', digest: 'string' }] }],
    generation: 'number',
    next: 'string?',
  },
  history: { history: [{ version: 'number', generation: 'number', createdAt: 'string' }], next: 'number?' },
  missing: { missing: names },
  uploaded: {},
  created: { ...KEY, key: 'string' },
  keys: { keys: [KEY], omitted: 'number?' },
  revoked: { id: 'string', name: 'string', revokedAt: 'string' },
  usage: {
    from: 'string',
    by: 'string',
    rows: [{ key: 'string', method: 'string', era: 'string', outcome: 'string', count: 'number' }],
    totals: { count: 'number', ok: 'number', failed: 'number' },
  },
} satisfies Record<string, Shape>;
