import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import { newRouter } from './router';
import { type Asset, asset, sendAsset } from './static-asset';

// The portal: the web page for people at `/`, built from src/portal/web by `npm run build:portal`
// into dist/portal (index.html and content-hashed assets). It speaks only the public API, from the
// same origin, so the policy below allows nothing from anywhere else and no inline code at all.

const HEADERS = {
  'Content-Security-Policy':
    "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** The portal's own paths: each answers the page, whose script shows the view, so a deep link works. */
export const PORTAL_PATHS = [
  '/',
  '/login',
  '/jobs',
  '/jobs/:id',
  '/agents',
  '/keys',
  '/members',
  '/webhooks',
  '/webhooks/:id',
  '/audit',
  '/usage',
];

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * dist/portal of the project, found from this file: src/http under tsx, dist/src/http in the image
 * (whose /app holds package.json beside dist/).
 */
export function portalDir(from = __dirname): string | undefined {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return path.join(dir, 'dist', 'portal');
    if (path.dirname(dir) === dir) return undefined;
  }
}

interface Built {
  index: Asset;
  assets: Map<string, Asset>;
}

/** What the page is told: where the Temporal UI is, and the namespace of the jobs' runs there. */
type PortalConfig = Pick<ApiConfig, 'portal' | 'temporal'>;

const attribute = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The settings the page reads from its <meta> tags (no inline script may carry them). */
function settingsOf(config: PortalConfig): string {
  const meta = {
    'compute-temporal-ui': config.portal.temporalUiUrl ?? '',
    'compute-temporal-namespace': config.temporal.namespace,
  };
  return Object.entries(meta)
    .map(([name, content]) => `<meta name="${name}" content="${attribute(content)}">`)
    .join('\n');
}

function load(dir: string | undefined, config: PortalConfig): Built | undefined {
  if (!dir || !fs.existsSync(path.join(dir, 'index.html'))) return undefined;
  const html = fs
    .readFileSync(path.join(dir, 'index.html'), 'utf8')
    .replace('</head>', `${settingsOf(config)}\n</head>`);
  const assets = new Map<string, Asset>();
  for (const name of fs.readdirSync(path.join(dir, 'assets'))) {
    assets.set(
      name,
      asset(fs.readFileSync(path.join(dir, 'assets', name)), TYPES[path.extname(name)] ?? 'application/octet-stream'),
    );
  }
  return { index: asset(html, 'text/html; charset=utf-8'), assets };
}

function notBuilt(ctx: Context): void {
  ctx.set(HEADERS);
  ctx.status = 503;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = 'The portal is not built: run npm run build:portal\n';
}

/**
 * The page for every portal path (revalidated each time: a deploy changes which assets it names)
 * and `/assets/<name>` (the name holds the content's hash: cached for good). Read into memory once;
 * an API started before the build answers 503 until the build is there.
 */
export function portalRoutes({
  config,
  log,
  dir = portalDir(),
}: {
  config: PortalConfig;
  log: Logger;
  dir?: string;
}): Router {
  let built = load(dir, config);
  if (!built) log.warn({ dir }, 'the portal is not built (npm run build:portal): its pages answer 503 until it is');
  const current = () => (built ??= load(dir, config));
  const router = newRouter();
  for (const route of PORTAL_PATHS) {
    router.get(route, (ctx) => {
      const b = current();
      if (!b) return notBuilt(ctx);
      sendAsset(ctx, b.index, 'no-cache', HEADERS);
    });
  }
  router.get('/assets/:name', (ctx, next) => {
    const a = current()?.assets.get(ctx.params.name);
    if (!a) return next();
    sendAsset(ctx, a, 'public, max-age=31536000, immutable', HEADERS);
  });
  return router;
}
