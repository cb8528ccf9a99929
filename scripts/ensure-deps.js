#!/usr/bin/env node
// Installs npm dependencies when they are missing or older than package-lock.json, so
// `npm run dev` and `npm test` work on a fresh clone. Plain JS: it runs before anything is installed.
const { execSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const lock = path.join(root, 'package-lock.json');
const installed = path.join(root, 'node_modules', '.package-lock.json');
const stale = !fs.existsSync(installed) || fs.statSync(installed).mtimeMs < fs.statSync(lock).mtimeMs;
if (stale) {
  process.stderr.write('installing npm dependencies…\n');
  try {
    execSync('npm ci --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  } catch {
    // npm 11 can record optional platform packages (@swc/core-*) without lock entries and then
    // refuse `npm ci` on its own lock; `npm install` still resolves from the committed lock.
    process.stderr.write('npm ci refused the lock; falling back to npm install\n');
    execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  }
}
