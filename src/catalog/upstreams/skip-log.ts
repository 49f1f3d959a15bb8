/**
 * The log line of an upstream's prompts that are not published under their name (sanitize.ts
 * collects them, /status shows them to an admin). Written when they change, not on every listing:
 * an upstream is re-listed at every poll and every cron minute, and one misconfigured alias would
 * otherwise log twice a minute for as long as it stands. Per object: an evicted one logs them again.
 */
import { log } from '../../lib/log.js';
import type { SkippedPrompt } from '../types.js';

export class SkipLog {
  private last = '[]';

  /** The skipped prompts of a good listing of `upstream` (undefined: none). */
  note(upstream: string, skipped: readonly SkippedPrompt[] | undefined): void {
    const key = JSON.stringify(skipped ?? []);
    if (key === this.last) return;
    this.last = key;
    if (skipped?.length) log.warn('upstream prompts not published', { upstream, prompts: skipped });
  }
}
