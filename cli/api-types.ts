/**
 * What the admin client (api.ts) speaks in: its errors, and the shapes of what it sends and gets.
 */
import type { SetDiff } from '../src/catalog/diff.js';

/** A failure the CLI reports and exits 1 on. */
export class CliError extends Error {}

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
