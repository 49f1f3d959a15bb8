/**
 * The admin API from Node: one method per endpoint (the requests themselves are
 * admin-transport.ts's), and a set published in one request or staged in parts.
 */
import type { KeyInfo } from '../src/catalog/keys-table.js';
import type { PromptRecord, SkillRecord, VersionInfo } from '../src/catalog/types.js';
import type { UsageAnswer } from '../src/routes/admin-usage.js';
import { answerOf, bytesOf } from './answer.js';
import { ANSWERS, type NewKey, type PublishOptions, type PublishResult, type StagedSet } from './api-types.js';
import { AdminTransport } from './admin-transport.js';
import { stopped, untilDone } from './interrupt.js';
import { partsOf } from './parts.js';

export type { KeyInfo, UsageAnswer };

export { CliError, UsageError } from './api-types.js';
export type { NewKey, PublishOptions, PublishResult, StagedSet } from './api-types.js';

const query = (opts: PublishOptions): string => {
  const q = new URLSearchParams();
  if (opts.dryRun) q.set('dry_run', '1');
  if (opts.prune) q.set('prune', '1');
  return q.toString();
};

export class AdminClient extends AdminTransport {
  /** Publishes `prompts` as one change: in one request when they fit, in parts otherwise. */
  async publish(prompts: PromptRecord[], opts: PublishOptions = {}): Promise<PublishResult> {
    const set = await this.stage(prompts);
    try {
      return await set.publish(opts);
    } finally {
      // A publish uses its upload up; a dry run, or a publish that never arrived, leaves one to forget.
      await set.discard();
    }
  }

  /**
   * A set made ready to publish, once or more (a dry run, then the publish): a set too large for
   * one request is uploaded once, in parts (parts.ts); `discard` forgets an upload not published
   * (and does nothing for one a publish used up, or a set sent in one request).
   */
  async stage(prompts: PromptRecord[]): Promise<StagedSet> {
    const parts = partsOf(prompts);
    if (parts.length === 1)
      return {
        publish: (opts) => this.call('POST', `/admin/publish?${query(opts)}`, ANSWERS.published, { prompts }),
        discard: async () => {},
      };
    // The upload is forgotten when the command is interrupted (interrupt.ts), not left open for its hour:
    // from before it is opened, since a signal may come while the gateway opens it. So the opening is
    // read whole even then (sent as part of its own undo), and its id is what the undo deletes.
    if (stopped.aborted) throw stopped.reason;
    const opening = this.call<{ upload: { id: string } }>('POST', '/admin/uploads', ANSWERS.upload, undefined, true);
    // Sent once, whoever asks first: a signal's cleanup, or the push that then stops.
    let forgotten: Promise<void> | undefined;
    const forget = () =>
      (forgotten ??= opening.then(
        ({ upload }) =>
          this.raw('DELETE', `/admin/uploads/${encodeURIComponent(upload.id)}`, undefined, true).then(
            () => undefined,
            () => undefined,
          ),
        () => undefined,
      ));
    const release = untilDone(forget);
    const discard = async () => {
      release();
      await forget();
    };
    let at: string;
    try {
      at = `/admin/uploads/${encodeURIComponent((await opening).upload.id)}`;
    } catch (e) {
      release(); // Not opened: nothing to undo.
      throw e;
    }
    try {
      // A signal while it was opened: nothing more is sent, and it is deleted.
      if (stopped.aborted) throw stopped.reason;
      for (const part of parts) await this.call('POST', `${at}/prompts`, ANSWERS.upload, { prompts: part });
    } catch (e) {
      await discard();
      throw e;
    }
    return { publish: (opts) => this.call('POST', `${at}/publish?${query(opts)}`, ANSWERS.published), discard };
  }

  /** Every current prompt: the gateway lists them a page at a time. */
  list(): Promise<(PromptRecord & { _version: number; _updatedAt: string })[]> {
    return this.listed('/admin/prompts', 'prompts');
  }

  history(name: string): Promise<VersionInfo[]> {
    return this.allPages(`/admin/prompts/${encodeURIComponent(name)}/history`);
  }

  rollback(name: string, version: number): Promise<PublishResult> {
    return this.call('POST', `/admin/prompts/${encodeURIComponent(name)}/rollback`, ANSWERS.published, { version });
  }

  // ---- skills (docs/skills.md) ----

  /** Which of these file digests the gateway does not hold yet. */
  async missingFiles(digests: string[]): Promise<string[]> {
    const path = '/admin/skills/files/missing';
    return (await this.call<{ missing: string[] }>('POST', path, ANSWERS.missing, { digests })).missing;
  }

  /** Uploads one file's bytes under their digest (the gateway checks they hash to it). */
  async uploadFile(digest: string, bytes: Uint8Array): Promise<void> {
    const path = `/admin/skills/files/${digest}`;
    await answerOf(await this.raw('PUT', path, bytes), `PUT ${path}`, ANSWERS.uploaded);
  }

  /** A published file's bytes, for `pull`. */
  async fetchFile(digest: string): Promise<Uint8Array> {
    const path = `/admin/skills/files/${digest}`;
    return bytesOf(await this.raw('GET', path), `GET ${path}`);
  }

  publishSkills(skills: SkillRecord[], opts: PublishOptions = {}): Promise<PublishResult> {
    return this.call('POST', `/admin/skills/publish?${query(opts)}`, ANSWERS.published, { skills });
  }

  listSkills(): Promise<(SkillRecord & { _version: number; _updatedAt: string })[]> {
    return this.listed('/admin/skills', 'skills');
  }

  skillHistory(name: string): Promise<VersionInfo[]> {
    return this.allPages(`/admin/skills/${encodeURIComponent(name)}/history`);
  }

  rollbackSkill(name: string, version: number): Promise<PublishResult> {
    return this.call('POST', `/admin/skills/${encodeURIComponent(name)}/rollback`, ANSWERS.published, { version });
  }

  /** The answer carries the secret: the only time it is ever shown. */
  createKey(key: NewKey): Promise<KeyInfo & { key: string }> {
    return this.call('POST', '/admin/keys', ANSWERS.created, key);
  }

  /** Active keys and the newest inactive ones; `omitted`: how many older inactive ones were not listed. */
  listKeys(): Promise<{ keys: KeyInfo[]; omitted?: number }> {
    return this.call('GET', '/admin/keys', ANSWERS.keys);
  }

  revokeKey(id: string): Promise<KeyInfo> {
    return this.call('DELETE', `/admin/keys/${encodeURIComponent(id)}`, ANSWERS.revoked);
  }

  /** Usage counts since `since` (ISO or epoch ms; the gateway's default: 24 hours ago). */
  usage(opts: { since?: string; by?: string }): Promise<UsageAnswer> {
    const q = new URLSearchParams();
    if (opts.since !== undefined) q.set('since', opts.since);
    if (opts.by !== undefined) q.set('by', opts.by);
    return this.call('GET', `/admin/usage?${q.toString()}`, ANSWERS.usage);
  }
}
