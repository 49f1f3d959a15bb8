/**
 * `promptgate usage --by client` prints names clients gave themselves: a control character in
 * one (ESC, CSI, a BEL) is shown as `\xNN`, so no row can drive the operator's terminal.
 */
import { describe, expect, it } from 'vitest';
import type { AdminClient, UsageAnswer } from '../../cli/api.js';
import { usageCommand } from '../../cli/usage.js';

const HOSTILE = 'evil\u001b]0;pwned\u0007\u009b2J\u007f/1.0';

const answer: UsageAnswer = {
  since: '2026-11-27T00:00:00.000Z',
  from: '2026-11-27T00:00:00.000Z',
  by: 'client',
  rows: [{ key: HOSTILE, method: 'prompts/get', era: 'modern', outcome: 'ok', count: 3 }],
  totals: { count: 3, ok: 3, failed: 0, byMethod: { 'prompts/get': 3 } },
};

describe('usage --by client', () => {
  it('prints a control character in a client name as \\xNN, never raw', async () => {
    const lines: string[] = [];
    const api = () => ({ usage: () => Promise.resolve(answer) }) as unknown as AdminClient;
    await usageCommand(api, [], { by: 'client' }, (l) => void lines.push(l));
    const printed = lines.join('\n');
    // eslint-disable-next-line no-control-regex -- asserting no control character is printed
    expect(printed).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(printed).toContain('evil\\x1b]0;pwned\\x07\\x9b2J\\x7f/1.0');
    // Columns are as wide as the printed cell, so the next column still lines up.
    const [header, row] = lines.slice(1, 3);
    expect(row!.indexOf('prompts/get')).toBe(header!.indexOf('METHOD'));
  });
});
