import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

// `npm run build:portal`: src/portal/web (Preact + TSX) bundled by esbuild into dist/portal:
// index.html and assets/ whose names carry their content's hash (served cached for good). The
// same sources give the same files, so a second build changes nothing (it writes no file whose
// bytes are already there, and every other file whole, by rename: two builds at once, as the
// test suite's lanes run them, never show a server half a file); files of an older build are
// removed once the new index.html is in place.

const ROOT = path.resolve(__dirname, '..');
const WEB = path.join(ROOT, 'src', 'portal', 'web');
export const PORTAL_OUT = path.join(ROOT, 'dist', 'portal');

export interface PortalBuild {
  /** Each file of the build, relative to the output folder, and its size in bytes. */
  files: Array<{ name: string; bytes: number }>;
  totalBytes: number;
}

const hashed = (name: string, body: Buffer) => {
  const ext = path.extname(name);
  return `${path.basename(name, ext)}-${createHash('sha256').update(body).digest('hex').slice(0, 10)}${ext}`;
};

/** Writes `body` to `file` by rename, unless the file holds exactly that already. */
function writeWhole(file: string, body: Buffer): void {
  const same = fs.existsSync(file) && fs.readFileSync(file).equals(body);
  if (same) return;
  const temp = path.join(path.dirname(file), `.${path.basename(file)}-${process.pid}`);
  fs.writeFileSync(temp, body);
  fs.renameSync(temp, file);
}

export async function buildPortal(outDir = PORTAL_OUT): Promise<PortalBuild> {
  const assets = path.join(outDir, 'assets');
  fs.mkdirSync(assets, { recursive: true });
  const result = await build({
    entryPoints: { main: path.join(WEB, 'main.tsx') },
    bundle: true,
    format: 'esm',
    target: ['chrome110', 'firefox115', 'safari16'],
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    tsconfig: path.join(WEB, 'tsconfig.json'),
    entryNames: '[name]-[hash]',
    outdir: assets,
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  for (const out of result.outputFiles) writeWhole(out.path, Buffer.from(out.contents));
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
  const script = outputs.find((f) => f.endsWith('.js'));
  const style = outputs.find((f) => f.endsWith('.css'));
  if (!script || !style) throw new Error(`the bundle lacks its script or stylesheet: ${outputs.join(', ')}`);
  const iconBody = fs.readFileSync(path.join(WEB, 'favicon.svg'));
  const favicon = hashed('favicon.svg', iconBody);
  writeWhole(path.join(assets, favicon), iconBody);

  const html = fs
    .readFileSync(path.join(WEB, 'index.html'), 'utf8')
    .replace('{{script}}', script)
    .replace('{{style}}', style)
    .replace('{{favicon}}', favicon);
  // An API reading the folder meanwhile sees the old page or the new one, whole.
  writeWhole(path.join(outDir, 'index.html'), Buffer.from(html));

  const current = new Set([script, style, favicon]);
  // Dot files are another build's, being written.
  for (const name of fs.readdirSync(assets))
    if (!current.has(name) && !name.startsWith('.')) fs.rmSync(path.join(assets, name), { force: true });
  const files = ['index.html', ...[...current].map((name) => `assets/${name}`)].map((name) => ({
    name,
    bytes: fs.statSync(path.join(outDir, name)).size,
  }));
  return { files, totalBytes: files.reduce((sum, f) => sum + f.bytes, 0) };
}

if (require.main === module) {
  buildPortal().then(
    ({ files, totalBytes }) => {
      for (const f of files) process.stdout.write(`  ${f.name}  ${(f.bytes / 1024).toFixed(1)} KiB\n`);
      process.stdout.write(
        `portal built in ${path.relative(process.cwd(), PORTAL_OUT) || '.'}: ${(totalBytes / 1024).toFixed(1)} KiB\n`,
      );
    },
    (err: Error) => {
      process.stderr.write(`portal build failed: ${err.message}\n`);
      process.exit(1);
    },
  );
}
