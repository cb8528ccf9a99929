#!/usr/bin/env node
// Runs the TypeScript CLI through tsx's require hook, resolved from this package.
require('tsx/cjs');
require('../src/cli/main.ts');
