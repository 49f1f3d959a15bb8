#!/usr/bin/env node
// The `promptgate` CLI. Runs the TypeScript sources through tsx, so the CLI
// and the Worker share one loader and one validator without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
