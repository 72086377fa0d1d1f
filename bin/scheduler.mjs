#!/usr/bin/env node
// The `scheduler` CLI. Runs the TypeScript sources through tsx, as `npm run -s cli` does in a checkout.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
