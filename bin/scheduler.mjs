#!/usr/bin/env node
// The `scheduler` CLI. From an installed package it runs the built JavaScript (dist/); in a checkout, where
// src/ sits beside it, it runs the TypeScript sources through tsx, as `npm run -s cli` does.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
let cli;
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  cli = await import(source.href);
} else {
  cli = await import('../dist/cli/main.js');
}
process.exitCode = await cli.main(process.argv.slice(2));
