/**
 * A prompt directory for access-control tests: one prompt for everyone and one for each of the
 * groups `eng` and `ops`, published through the same CLI path as ./prompts.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Three prompts: one for everyone, one for `eng`, one for `ops`. */
export function groupedPromptsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'promptgate-auth-prompts-'));
  const file = (name: string, groups: string[] | undefined) =>
    writeFileSync(
      join(dir, `${name}.md`),
      [
        '---',
        `name: ${name}`,
        `description: The ${name} prompt`,
        ...(groups ? [`groups: [${groups.join(', ')}]`] : []),
        '---',
        '',
        '## user',
        '',
        `Say ${name}.`,
        '',
      ].join('\n'),
    );
  file('everyone', undefined);
  file('eng_only', ['eng']);
  file('ops_only', ['ops']);
  return dir;
}
