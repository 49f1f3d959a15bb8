/**
 * Every route of the app fits Hono's RegExpRouter. One route set it cannot compile (such as
 * `/skills/:name/history` beside `/skills/files/:digest` for the same method) silently moves the
 * whole app to the slower TrieRouter, and each request then pays for it (bench/RESULTS.md, "Where
 * a warm request's time goes").
 */
import { RegExpRouter } from 'hono/router/reg-exp-router';
import { describe, expect, it } from 'vitest';
import { app } from '../../src/routes/app.js';

describe('routes', () => {
  it('all compile into one RegExpRouter', () => {
    const router = new RegExpRouter<unknown>();
    for (const r of app.routes) router.add(r.method, r.path, r.handler);
    for (const [method, path] of [
      ['POST', '/mcp'],
      ['GET', '/prompts'],
      ['PUT', `/admin/skills/files/sha256:${'a'.repeat(64)}`],
      ['GET', '/admin/skills/some-skill'],
    ] as const)
      expect(router.match(method, path)[0].length, `${method} ${path}`).toBeGreaterThan(0);
  });

  it('are served by it', async () => {
    await app.request('/status');
    expect(app.router.name).toBe('SmartRouter + RegExpRouter');
  });
});
