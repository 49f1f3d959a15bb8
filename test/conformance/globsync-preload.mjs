/**
 * `node --import ./globsync-preload.mjs …` for the official MCP conformance CLI on Node 20.
 *
 * @modelcontextprotocol/conformance imports `globSync` from `fs`, which only Node 22 has.
 * A builtin's ESM export names are fixed when it is first loaded, so patching `fs` is not
 * enough: a resolve hook hands the conformance bundle (and only it) a module that
 * re-exports node:fs plus a globSync built on tinyglobby. On Node 22+ this is a no-op.
 */
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./globsync-hooks.mjs', import.meta.url);
