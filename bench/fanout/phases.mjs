/**
 * The phases of one fanout run before the change, on one fresh Miniflare instance: start it
 * (with its log sink, an undici Agent with a connection per stream, and one abort signal for
 * all streams), open N sessions, attach N streams each read to its priming event. Every phase
 * is bounded (PHASE_TIMEOUT_MS) and fails the run rather than hangs it.
 */
import { setMaxListeners } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Miniflare } from 'miniflare';
import { pool, withTimeout } from '../lib/async.mjs';
import { Agent, agentText } from '../lib/http.mjs';
import { gatewayBaseOptions } from '../lib/miniflare-options.mjs';
import { openSession } from '../lib/mcp-session.mjs';
import { findWorkerd, rssMiB } from '../lib/proc.mjs';
import { makeLogSink } from './log-sink.mjs';
import {
  INIT_CONCURRENCY,
  OPEN_CONCURRENCY,
  PHASE_TIMEOUT_MS,
  SHARDS_OVERRIDE,
  RECHECK_OVERRIDE,
  SIGNING_SECRET,
  ADMIN_TOKEN,
} from './settings.mjs';
import { openStream } from './stream.mjs';

function options(build, wcfg, coalesceMs, logs) {
  return {
    ...gatewayBaseOptions(build, wcfg, 'fanout'),
    bindings: {
      ...wcfg.vars,
      NOTIFY_COALESCE_MS: String(coalesceMs),
      ...(SHARDS_OVERRIDE ? { REGISTRY_SHARDS: String(SHARDS_OVERRIDE) } : {}),
      // Every stream comes from this one address, standing for many clients: one client's share is the whole shard.
      SHARD_MAX_CLIENT_STREAMS: wcfg.vars.SHARD_MAX_STREAMS,
      ...(RECHECK_OVERRIDE !== null ? { SESSION_RECHECK_MS: String(RECHECK_OVERRIDE) } : {}),
      SIGNING_SECRET,
      ADMIN_TOKEN,
      AUTH: 'none',
    },
    handleStructuredLogs: logs.handle,
  };
}

/** Wraps a phase's error with the run's tag. */
export const tagged = (tag, what) => (e) => {
  throw new Error(`${tag}: ${what}: ${e?.code ?? ''} ${e?.message ?? e}`, { cause: e });
};

/** A fresh instance; `dispose` aborts the streams, destroys the agent and disposes Miniflare (once). */
export function startInstance(build, wcfg, n, coalesceMs) {
  const logs = makeLogSink();
  const streamsAbort = new AbortController();
  setMaxListeners(0, streamsAbort.signal); // one signal for all N streams
  const agent = new Agent({ connections: n + 50, pipelining: 1, keepAliveTimeout: 60_000, connectTimeout: 30_000 });
  const mf = new Miniflare(options(build, wcfg, coalesceMs, logs));
  let disposed = false;
  const dispose = async () => {
    if (disposed) return;
    disposed = true;
    streamsAbort.abort();
    await agent.destroy().catch(() => {});
    await mf.dispose();
  };
  return { mf, agent, logs, signal: streamsAbort.signal, dispose };
}

/** RSS of the instance's workerd process, or Node's own (labelled so) when /proc cannot tell. */
export function memorySample(workerd) {
  const nodeRss = process.memoryUsage().rss / 1048576;
  if (workerd) {
    const w = rssMiB(workerd.pid);
    if (Number.isFinite(w)) return { source: 'workerd', rssMiB: w, nodeRssMiB: nodeRss };
  }
  return { source: 'node', rssMiB: nodeRss, nodeRssMiB: nodeRss };
}

/** Ready, its URLs and its workerd process. */
export async function instanceReady(inst, tag) {
  const base = (await withTimeout(inst.mf.ready, 60_000, `${tag}: Miniflare start`)).href;
  return { base, mcpUrl: new URL('/mcp', base).href, workerd: findWorkerd(new URL(base).port) };
}

/** N legacy sessions (initialize + notifications/initialized), INIT_CONCURRENCY at a time. */
export async function openSessions(h, agent, mcpUrl, n, tag) {
  const t = performance.now();
  const sids = new Array(n);
  const send = (url, req) => agentText(agent, url, req);
  await withTimeout(
    pool(
      [...Array(n).keys()],
      INIT_CONCURRENCY,
      async (i) => {
        const what = `initialize #${i}`;
        const clientInfo = { name: 'promptgate-fanout', version: String(i) };
        const { sessionId, result } = await openSession(send, mcpUrl, { clientInfo, initialized: true, what }).catch(
          tagged(tag, `session #${i}`),
        );
        if (!result.capabilities?.prompts?.listChanged)
          tagged(tag, `session #${i}`)(new Error(`${what}: no prompts.listChanged capability`));
        sids[i] = sessionId;
      },
      () => h.shuttingDown,
    ),
    PHASE_TIMEOUT_MS,
    `${tag}: opening ${n} sessions`,
  );
  return { sids, initMs: performance.now() - t };
}

/** One stream per session, OPEN_CONCURRENCY opening at a time, each read to its priming event. */
export async function attachStreams(h, inst, mcpUrl, sids, tag) {
  const n = sids.length;
  let firstChanges = 0;
  let allChanged;
  const allChangedP = new Promise((r) => (allChanged = r));
  const onFirstChange = () => {
    if (++firstChanges === n) allChanged();
  };
  const t = performance.now();
  const streams = new Array(n);
  await withTimeout(
    pool(
      sids,
      OPEN_CONCURRENCY,
      async (sid, i) => {
        streams[i] = openStream(inst.agent, mcpUrl, sid, inst.signal, onFirstChange);
        await streams[i].primed.catch(tagged(tag, `stream #${i}`));
      },
      () => h.shuttingDown,
    ),
    PHASE_TIMEOUT_MS,
    `${tag}: attaching ${n} streams`,
  );
  return { streams, allChangedP, attachMs: performance.now() - t };
}
