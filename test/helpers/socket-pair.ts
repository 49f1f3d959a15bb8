/**
 * Real WebSockets for the bridge's unit tests: a WebSocketPair in workerd, both ends accepted. The
 * test plays the object on `theirs`; the bridge holds `ours`.
 */
import { expect } from 'vitest';

export function pair(): { ours: WebSocket; theirs: WebSocket } {
  const [ours, theirs] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
  ours.accept();
  theirs.accept();
  return { ours, theirs };
}

export const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits up to `ms` (in 5 ms steps) for `check`, then asserts it. */
export async function until(check: () => boolean, ms = 1_000): Promise<void> {
  for (let i = 0; i < ms / 5 && !check(); i++) await pause(5);
  expect(check()).toBe(true);
}
