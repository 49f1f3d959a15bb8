/**
 * A client's self-description becomes a usage row and a log field: `clientLabel` keeps no control
 * character (ESC sequences would reach whoever prints the row) and stays within its bound.
 */
import { describe, expect, it } from 'vitest';
import { clientLabel, MAX_CLIENT_FIELD } from '../../src/lib/record.js';

describe('clientLabel', () => {
  it('shows C0, C1 and DEL characters as \\xNN in name and version', () => {
    const label = clientLabel({ name: 'cli\u001b[31mred\u0000', version: '1\u009b2\u007f\n' });
    expect(label).toEqual({ name: 'cli\\x1b[31mred\\x00', version: '1\\x9b2\\x7f\\x0a' });
  });

  it('cuts each field to its bound after escaping, and keeps printable text as it is', () => {
    const label = clientLabel({ name: '\u001b'.repeat(100), version: 'claude-code/2.1 ü' })!;
    expect(label.name.length).toBe(MAX_CLIENT_FIELD);
    // eslint-disable-next-line no-control-regex -- asserting no control character is kept
    expect(label.name).not.toMatch(/[\u0000-\u001f]/);
    expect(label.version).toBe('claude-code/2.1 ü');
  });
});
