import './docs/no-network';
import fs from 'node:fs';
import path from 'node:path';
import { generatedPages } from './docs/pages';

// `npm run docs` writes the generated reference pages (docs/reference/{configuration,api,errors}.md);
// `npm run docs:check` writes nothing and fails naming each page that is out of date. Neither
// starts a service: the pages come from modules imported here (the config schema, the route
// definitions, the error vocabulary), and ./docs/no-network refuses any connection.

const ROOT = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
const stale: string[] = [];
for (const page of generatedPages()) {
  const file = path.join(ROOT, page.path);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (current === page.content) continue;
  if (check) stale.push(page.path);
  else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, page.content);
    process.stdout.write(`wrote ${page.path}\n`);
  }
}
if (stale.length) {
  process.stderr.write(`out of date: ${stale.join(', ')}; run npm run docs\n`);
  process.exitCode = 1;
}
