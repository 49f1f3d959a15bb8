/**
 * The cap on listed issues (content-checks.ts MAX_ISSUES): it counts a whole set, keeps the first
 * issues as they were, and ends with how many more were found. Values with no string form are
 * quoted as JSON in messages.
 */
import { describe, expect, it } from 'vitest';
import { capIssues, MAX_ISSUES, problemCount, quote } from '../../src/catalog/issues.js';
import { parseKeyInput } from '../../src/catalog/key-input.js';
import { validateSkillSet } from '../../src/catalog/skills/validate.js';
import { validatePrompt, validateSet } from '../../src/catalog/validate.js';

const bad = (n: number) => ({ name: 'p', messages: Array.from({ length: n }, () => 0) });

describe('issue cap', () => {
  it('one prompt: the first MAX_ISSUES in order, then how many more', () => {
    const issues = validatePrompt(bad(250));
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues[0]).toEqual({ path: 'messages[0]', message: 'must be an object' });
    expect(issues[MAX_ISSUES - 1]!.path).toBe(`messages[${MAX_ISSUES - 1}]`);
    expect(issues[MAX_ISSUES]).toEqual({ path: '', message: `… and ${250 - MAX_ISSUES} more problems` });
    expect(problemCount(issues)).toBe(250);
  });
  it('a set is capped as a whole, its paths still prefixed', () => {
    const issues = validateSet([bad(60), bad(60), bad(60)]);
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues[60]!.path).toBe('prompts[1]: messages[0]');
    // Two duplicate names as well.
    expect(problemCount(issues)).toBe(182);
  });
  it('exactly MAX_ISSUES problems are all listed, with no marker', () => {
    expect(validatePrompt(bad(MAX_ISSUES))).toHaveLength(MAX_ISSUES);
  });
  it('skills and keys are capped the same way', () => {
    const files = Array.from({ length: 300 }, () => 0);
    const skills = validateSkillSet([{ name: 's', frontmatter: { name: 's', description: 'd' }, files }]);
    // Each file, and no SKILL.md.
    expect(problemCount(skills)).toBe(301);
    expect(skills).toHaveLength(MAX_ISSUES + 1);
    const key = parseKeyInput({ name: 'k', groups: Array.from({ length: 1_000 }, () => 0) }, Date.now());
    expect(key.ok).toBe(false);
    if (!key.ok) {
      expect(key.issues).toHaveLength(MAX_ISSUES + 1);
      expect(problemCount(key.issues)).toBe(1_001);
    }
  });
  it('capIssues caps a long list and keeps a capped one as it is', () => {
    const long = Array.from({ length: 150 }, (_, i) => ({ path: `x[${i}]`, message: 'm' }));
    const capped = capIssues(long);
    expect(capped).toHaveLength(MAX_ISSUES + 1);
    expect(problemCount(capped)).toBe(150);
    expect(capIssues(capped)).toBe(capped);
    const already = validatePrompt(bad(500));
    expect(problemCount(capIssues([...already, { path: 'later', message: 'm' }]))).toBe(500 + 1);
  });
});

describe('quote', () => {
  it('is JSON, clipped, and never calls the value’s own toString', () => {
    expect(quote('p')).toBe('"p"');
    expect(quote({ toString: 0 })).toBe('{"toString":0}');
    expect(quote([{ toString: 0 }])).toBe('[{"toString":0}]');
    expect(quote('x'.repeat(100))).toBe(`"${'x'.repeat(59)}…`);
    expect(quote(undefined)).toBe('undefined');
  });
});
