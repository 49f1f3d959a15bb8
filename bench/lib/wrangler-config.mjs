/**
 * wrangler.toml as wrangler reads it, checked for the bindings a harness relies on.
 *
 * Read in a child process: importing `wrangler` installs SIGINT/SIGTERM handlers that call
 * process.exit() before our cleanup could run. Durable Object bindings carry useSQLite from
 * the migrations' new_sqlite_classes; vars are strings (non-strings JSON-encoded), as
 * Miniflare bindings.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT } from './paths.mjs';

const READ_SCRIPT =
  "const { unstable_readConfig } = await import('wrangler');" +
  'const c = unstable_readConfig({ config: process.argv[1] });' +
  'process.stdout.write(JSON.stringify({ compatibility_date: c.compatibility_date, compatibility_flags: c.compatibility_flags,' +
  ' vars: c.vars, kv_namespaces: c.kv_namespaces, durable_objects: c.durable_objects, migrations: c.migrations }));';

/**
 * `need.kv`: KV bindings that must exist. `need.dos`: Durable Object binding name →
 * the class it must bind (or `true`: any class), SQLite-backed in every case.
 */
export async function readWranglerConfig(h, need = {}) {
  const { stdout } = await h.exec(
    process.execPath,
    ['--input-type=module', '-e', READ_SCRIPT, join(ROOT, 'wrangler.toml')],
    {
      timeoutMs: 60_000,
    },
  );
  const cfg = JSON.parse(stdout);
  const sqliteClasses = new Set(cfg.migrations.flatMap((m) => m.new_sqlite_classes ?? []));
  const dos = Object.fromEntries(
    cfg.durable_objects.bindings.map((b) => [
      b.name,
      { className: b.class_name, useSQLite: sqliteClasses.has(b.class_name) },
    ]),
  );
  const wcfg = {
    compatibilityDate: cfg.compatibility_date,
    compatibilityFlags: cfg.compatibility_flags ?? [],
    vars: {
      // wrangler.toml leaves AUTH unset on purpose (a deployment must choose); the benches measure the
      // gateway without access control, as .dev.vars runs it, unless a harness overrides it.
      AUTH: 'none',
      ...Object.fromEntries(
        Object.entries(cfg.vars ?? {}).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]),
      ),
    },
    kv: cfg.kv_namespaces.map((k) => k.binding),
    dos,
  };
  checkBindings(wcfg, need);
  return wcfg;
}

function checkBindings(wcfg, { kv = [], dos = {} }) {
  for (const name of kv) assert.ok(wcfg.kv.includes(name), `wrangler.toml must bind the ${name} KV namespace`);
  for (const [name, className] of Object.entries(dos)) {
    if (className === true)
      assert.ok(wcfg.dos[name]?.useSQLite, `wrangler.toml must bind ${name} to a SQLite-backed Durable Object`);
    else
      assert.deepEqual(
        wcfg.dos[name],
        { className, useSQLite: true },
        `wrangler.toml must bind ${name} to the SQLite-backed ${className}`,
      );
  }
}
