/**
 * Miniflare options for the bundles of lib/build.mjs: on loopback (random port), with the
 * gateway's compatibility settings, and for the gateway its KV namespaces and every Durable
 * Object binding of wrangler.toml. Each harness adds its bindings (vars, secrets, overrides).
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * The bundle is handed over as its one module, as `wrangler dev` does. Given only a scriptPath
 * (`modules: true`), Miniflare parses the script in Node to find its imports before workerd
 * starts: ~85 ms for the gateway's bundle and ~13 ms for the ceiling's on this machine, a cost
 * of the harness that neither `wrangler dev` nor Cloudflare has, and which would dominate the
 * cold-start figures.
 */
function workerOptions(name, build, wcfg) {
  return {
    name,
    host: '127.0.0.1',
    port: 0,
    modules: [{ type: 'ESModule', path: build.scriptPath, contents: readFileSync(build.scriptPath, 'utf8') }],
    modulesRoot: dirname(build.scriptPath),
    compatibilityDate: wcfg.compatibilityDate,
    compatibilityFlags: wcfg.compatibilityFlags,
  };
}

/** The ceiling: its fixed bodies as text bindings. */
export function ceilingOptions(build, wcfg, bodies) {
  return { ...workerOptions('ceiling', build, wcfg), bindings: bodies };
}

/**
 * The Worker's stdout (one `request` log line per request, docs/observability.md) is read and
 * dropped: printed, thousands of lines a second would cost the load generator's process, which
 * shares the machine, and nothing in production prints them to a terminal. Warnings and errors
 * (stderr) still show.
 */
function quietStdout(stdout, stderr) {
  stdout.resume();
  stderr.pipe(process.stderr);
}

/** Common to every gateway instance. */
export function gatewayBaseOptions(build, wcfg, kvPrefix) {
  return {
    ...workerOptions('promptgate', build, wcfg),
    handleRuntimeStdio: quietStdout,
    kvNamespaces: Object.fromEntries(wcfg.kv.map((b) => [b, `${kvPrefix}-${b.toLowerCase()}`])),
    durableObjects: wcfg.dos,
  };
}
