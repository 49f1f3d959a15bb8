/**
 * Every test in every project must assert something through expect: a test that only waits, or
 * asserts inside a callback that never runs, fails here instead of passing silently.
 */
import { beforeEach, expect } from 'vitest';

beforeEach(() => {
  expect.hasAssertions();
});
