/**
 * The directory `pull` writes into, and what in it belongs to pull. A file left there that is no
 * longer published would come back with the next push (a prompt deleted at the gateway, a file
 * removed from a skill), or clash with its own new file (`x.md` pulled again as `x.json`), so pull
 * writes only into an empty or new directory, or, with `--replace`, into one that holds nothing but
 * an earlier pull's files, unchanged; then those no longer published are removed. The record of
 * what pull wrote is MANIFEST. What push ignores (dot-names: `.git`) is neither looked at nor
 * touched, and pull never writes there (names never start with a dot); nothing else pull did not
 * write is ever deleted or overwritten: pull refuses instead.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { CliError } from './api-types.js';
import { clashes, safePath } from './plan-paths.js';
import { SIDECAR } from './skill-texts.js';
import { sha256 } from './skills.js';

const MANIFEST = '.promptgate-pull.json';

/** A file pull is about to write: where, and the digest of its bytes. */
export interface Planned {
  path: string;
  digest: string;
}

/** Push skips dot-names (but a skill's sidecar): pull neither looks at them nor touches them (`.git`). */
const ignored = (name: string) => name.startsWith('.') && name !== SIDECAR;

/** Every other file under `dir`, relative and `/`-separated; a symlink counts as a file, never followed. */
function filesUnder(dir: string, at = dir, out: string[] = []): string[] {
  for (const n of readdirSync(at)) {
    if (ignored(n)) continue;
    const full = join(at, n);
    if (lstatSync(full).isDirectory()) filesUnder(dir, full, out);
    else out.push(relative(dir, full).split('\\').join('/'));
  }
  return out;
}

/** The earlier pull's record: path → the digests each file may hold (two after an interrupted pull). */
function readManifest(dir: string): Map<string, string[]> | undefined {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) return undefined;
  const damaged = (why: string) =>
    new CliError(`${path} is damaged (${why}), so what pull wrote cannot be told apart: pull into a new directory`);
  let files: unknown;
  try {
    files = (JSON.parse(readFileSync(path, 'utf8')) as { files?: unknown } | null)?.files;
  } catch (e) {
    throw damaged(String(e));
  }
  if (!files || typeof files !== 'object' || Array.isArray(files)) throw damaged('no "files" mapping');
  for (const [p, d] of Object.entries(files))
    if (!safePath(p) || !Array.isArray(d) || !d.every((x) => typeof x === 'string')) throw damaged(`at "${p}"`);
  return new Map(Object.entries(files as Record<string, string[]>));
}

function writeManifest(dir: string, files: Map<string, string[]>): void {
  const sorted = Object.fromEntries([...files].sort(([a], [b]) => (a < b ? -1 : 1)));
  const about = 'Written by `promptgate pull`: the files it wrote, so that `pull --replace` can tell them from yours.';
  writeFileSync(join(dir, MANIFEST), `${JSON.stringify({ about, files: sorted }, null, 2)}\n`);
}

const listed = (paths: string[]) =>
  paths
    .slice(0, 20)
    .map((p) => `\n  ${p}`)
    .join('') + (paths.length > 20 ? `\n  (and ${paths.length - 20} more)` : '');

export class PullTarget {
  private planned = new Map<string, string>();
  /** Planned paths by their lower case: what one file may be called on macOS and Windows. */
  private readonly spellings = new Map<string, string>();

  private constructor(
    readonly dir: string,
    /** The earlier pull's files, each checked to be still as it wrote them. */
    private readonly before: Map<string, string[]>,
    /** Files it did not write, or that changed since, with their digest now (undefined: not a file). */
    private readonly strange = new Map<string, string | undefined>(),
  ) {}

  /** Checks that pull may write into `dir` (see the header), before anything is asked of the gateway. */
  static open(dir: string, replace = false): PullTarget {
    if (!existsSync(dir)) return new PullTarget(dir, new Map());
    if (!statSync(dir).isDirectory()) throw new CliError(`${dir} is not a directory`);
    const files = filesUnder(dir);
    if (!files.length) return new PullTarget(dir, new Map()); // nothing there push would read: nothing to lose
    const manifest = readManifest(dir);
    if (!manifest)
      throw new CliError(
        `${dir} is not empty, and pull writes only into an empty or new directory (a file left there that is ` +
          `no longer published would come back with the next push); pull into a new directory`,
      );
    if (!replace)
      throw new CliError(
        `${dir} holds an earlier pull: pass --replace to bring it up to date (the files that pull wrote and that ` +
          `are no longer published are removed; nothing else is touched), or pull into a new directory`,
      );
    // Files the last pull did not write, or that changed since: decided once the plan is known (begin).
    const strange = new Map<string, string | undefined>();
    for (const p of files) {
      const full = join(dir, p);
      const now = lstatSync(full).isFile() ? sha256(readFileSync(full)) : undefined;
      if (now === undefined || !manifest.get(p)?.includes(now)) strange.set(p, now);
    }
    return new PullTarget(dir, manifest, strange);
  }

  /**
   * Records every file about to be written, before any is: an interrupted pull still owns them all.
   * A file the last pull did not write, or that changed since, stops the pull here, before anything
   * is written, unless it already holds what this pull would write there (edited, then pushed).
   */
  begin(planned: Planned[]): void {
    // Each path is made from what the gateway sent: one that would leave the directory, or write
    // where push never reads (`.git`), is refused, whatever let it through to here.
    const unsafe = planned.filter((p) => !safePath(p.path) || p.path.split('/').some(ignored));
    if (unsafe.length)
      throw new CliError(
        `the gateway's catalog would be written outside ${this.dir}, or into hidden files; nothing was written:` +
          listed(unsafe.map((p) => p.path)),
      );
    const clashing = clashes(planned.map((p) => p.path));
    if (clashing.length)
      throw new CliError(
        `the gateway's catalog holds names that cannot all be files in one directory; nothing was written. ` +
          `Rename one of each pair at the gateway and pull again:${listed(clashing)}`,
      );
    const plan = new Map(planned.map((p) => [p.path, p.digest]));
    const theirs = [...this.strange].filter(([path, now]) => now === undefined || plan.get(path) !== now);
    if (theirs.length)
      throw new CliError(
        `${this.dir} holds files the last pull did not write, or that changed since and are not what the gateway ` +
          `serves; nothing was written, so they are kept. Push them or move them out and pull again, or pull into ` +
          `a new directory:${listed(theirs.map(([path]) => path))}`,
      );
    this.planned = plan;
    for (const p of this.planned.keys()) this.spellings.set(p.toLowerCase(), p);
    const both = new Map(this.before);
    for (const [path, d] of this.planned) both.set(path, [...new Set([...(both.get(path) ?? []), d])]);
    mkdirSync(this.dir, { recursive: true });
    writeManifest(this.dir, both);
  }

  /** Writes one planned file; one edited since the pull began (it may wait out rate limits for minutes) is kept. */
  write(path: string, bytes: Uint8Array): void {
    if (!this.planned.has(path)) throw new CliError(`${path} was not among the files checked before writing`);
    const full = join(this.dir, path);
    const st = lstatSync(full, { throwIfNoEntry: false });
    if (st) {
      const now = st.isFile() ? sha256(readFileSync(full)) : undefined;
      const ours = now !== undefined && (this.before.get(path)?.includes(now) || this.planned.get(path) === now);
      if (!ours)
        throw new CliError(
          `${full} changed while pulling; it is kept, and the pull stopped there. Pull again with --replace`,
        );
    }
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, bytes);
  }

  /** Removes the earlier pull's files no longer published (and folders they leave empty); returns them. */
  finish(): string[] {
    const removed: string[] = [];
    for (const [path, digests] of this.before) {
      const full = join(this.dir, path);
      if (this.planned.has(path) || !lstatSync(full, { throwIfNoEntry: false })?.isFile() || this.writtenAs(path))
        continue;
      if (!digests.includes(sha256(readFileSync(full)))) continue; // changed during the pull: theirs now
      rmSync(full);
      removed.push(path);
      for (let at = dirname(full); relative(this.dir, at) !== '' && readdirSync(at).length === 0; at = dirname(at))
        rmdirSync(at);
    }
    writeManifest(this.dir, new Map([...this.planned].map(([p, d]) => [p, [d]])));
    return removed;
  }

  /** Whether `path` is a file just written under another spelling (`Review.md` as `review.md` on macOS). */
  private writtenAs(path: string): boolean {
    const other = this.spellings.get(path.toLowerCase());
    if (other === undefined) return false;
    const a = statSync(join(this.dir, path));
    const b = statSync(join(this.dir, other), { throwIfNoEntry: false });
    return b?.ino === a.ino && b.dev === a.dev;
  }
}
