import { describe, expect, it } from 'vitest';
import { completeValues } from '../../src/catalog/complete.js';
import { compileTemplate, placeholders, render } from '../../src/catalog/template.js';

describe('templates', () => {
  it('compiles to alternating text and names, tolerating inner spaces', () => {
    expect(compileTemplate('a {{x}} b {{ y }}')).toEqual(['a ', 'x', ' b ', 'y', '']);
    expect(placeholders('{{a}}{{b.c}} {{ not valid }}')).toEqual(['a', 'b.c']);
  });
  it('substitutes plainly: values are never evaluated or re-expanded', () => {
    const t = compileTemplate('<{{x}}|{{y}}>');
    expect(render(t, { x: '{{y}}', y: '${1+1}' })).toBe('<{{y}}|${1+1}>');
    expect(render(t, {})).toBe('<|>');
    expect(render(compileTemplate('no placeholders'), {})).toBe('no placeholders');
  });
});

describe('completeValues', () => {
  it('ranks prefix, then substring, then subsequence, case-insensitively', () => {
    expect(completeValues(['Python', 'TypeScript', 'JavaScript', 'Go'], 'sc').values).toEqual([
      'TypeScript',
      'JavaScript',
    ]);
    expect(completeValues(['toy', 'tty', 'typescript', 'party', 'go'], 'ty').values).toEqual([
      'typescript',
      'tty',
      'party',
      'toy',
    ]);
    expect(completeValues(['a', 'b'], '').values).toEqual(['a', 'b']);
  });
});
