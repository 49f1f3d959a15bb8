/**
 * One standalone SSE stream (GET /mcp) of a legacy session, read through lib/sse.mjs with the
 * arrival time of the chunk each frame came in. `primed` resolves at the priming event
 * (`<key>.<generation>`, empty data); every list_changed after it is timestamped into `events`,
 * and an event id of another stream or not of a newer generation is counted in `badIds`.
 */
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { PROTOCOL } from '../lib/jsonrpc.mjs';
import { createSseParser } from '../lib/sse.mjs';
import { LIST_CHANGED } from './settings.mjs';

export function openStream(agent, mcpUrl, sid, signal, onFirstChange) {
  const s = { sid, key: null, position: 0, primedAt: NaN, events: [], badIds: 0, other: 0, ended: false, error: null };
  s.primed = (async () => {
    const res = await request(mcpUrl, {
      method: 'GET',
      headers: { accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': PROTOCOL },
      dispatcher: agent,
      signal,
      headersTimeout: 60_000,
      bodyTimeout: 0,
    });
    if (res.statusCode !== 200) {
      const text = await res.body.text().catch(() => '');
      throw new Error(`GET stream: HTTP ${res.statusCode}: ${text.slice(0, 300)}`);
    }
    if (!String(res.headers['content-type']).startsWith('text/event-stream'))
      throw new Error(`GET stream: content-type ${res.headers['content-type']}`);
    return readFrames(s, res.body, signal, onFirstChange);
  })();
  // Failures are collected from `primed` by the caller; never unhandled.
  s.primed.catch(() => {});
  return s;
}

/** Resolves at the priming event; keeps recording list_changed events after it. */
function readFrames(s, body, signal, onFirstChange) {
  return new Promise((resolvePrimed, rejectPrimed) => {
    const parser = createSseParser();
    body.setEncoding('utf8');
    body.on('data', (chunk) => {
      const at = performance.now();
      for (const f of parser.push(chunk)) {
        if (f.comment !== undefined || f.retry !== undefined) continue;
        if (f.id !== undefined && f.data === '' && s.key === null) {
          // Priming event: `<key>.<generation>`, empty data.
          const m = /^(.+)\.(\d+)$/.exec(f.id);
          if (!m) return rejectPrimed(new Error(`priming event with unexpected id ${f.id}`));
          s.key = m[1];
          s.position = Number(m[2]);
          s.primedAt = at;
          resolvePrimed();
          continue;
        }
        recordEvent(s, f, at, onFirstChange);
      }
    });
    body.on('end', () => {
      s.ended = true;
      rejectPrimed(new Error('stream ended before its priming event'));
    });
    body.on('error', (e) => {
      s.ended = true;
      if (!signal.aborted) s.error = String(e?.message ?? e);
      rejectPrimed(e);
    });
  });
}

function recordEvent(s, f, at, onFirstChange) {
  let msg;
  try {
    msg = JSON.parse(f.data ?? '');
  } catch {}
  if (msg?.method === LIST_CHANGED && f.event === 'message') {
    // Every event is `<key>.<generation>`, each generation newer than the last.
    const g = f.id?.startsWith(`${s.key}.`) ? Number(f.id.slice(s.key.length + 1)) : NaN;
    if (!(g > s.position)) s.badIds += 1;
    else s.position = g;
    s.events.push({ at, id: f.id });
    if (s.events.length === 1) onFirstChange();
  } else {
    s.other += 1;
  }
}
