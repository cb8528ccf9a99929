import './docs/no-network';
import fs from 'node:fs';
import path from 'node:path';
import { generatedClientFiles } from './docs/clients';
import { type GeneratedPage, generatedPages } from './docs/pages';

// `npm run docs` writes the generated reference pages (docs/reference/{configuration,api,errors}.md);
// `npm run docs:check` writes nothing and fails naming each page that is out of date. Neither
// starts a service: the pages come from modules imported here (the config schema, the route
// definitions, the error vocabulary), and ./docs/no-network refuses any connection.

const ROOT = path.resolve(__dirname, '..');
const check = process.argv.includes('--check');
const stale: string[] = [];

async function main() {
  const pages = generatedPages();
  // The clients come from the OpenAPI document as generated now, not as it was on disk.
  const openApi = pages.find((p) => p.path === 'clients/openapi.json')!.content;
  for (const page of [...pages, ...(await generatedClientFiles(openApi))]) write(page);
  if (stale.length) {
    process.stderr.write(`out of date: ${stale.join(', ')}; run npm run docs\n`);
    process.exitCode = 1;
  }
}

function write(page: GeneratedPage) {
  const file = path.join(ROOT, page.path);
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
  if (current === page.content) return;
  if (check) stale.push(page.path);
  else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, page.content);
    process.stdout.write(`wrote ${page.path}\n`);
  }
}

void main();
