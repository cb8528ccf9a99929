import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { ERROR_CODES, type ErrorCode } from '../shared/errors';
import { newRouter } from './router';
import { type Asset, asset, sendAsset } from './static-asset';

// The human-readable docs: Swagger UI (from the swagger-ui-dist package, served by us: no CDN)
// renders the OpenAPI document, above it the problem types of the error vocabulary, each at the
// anchor a /v0 problem's `type` points to (`/v0/docs#problem-<code>`).

// Swagger UI sets styles through the DOM (allowed) and draws a few icons as data: SVGs in its CSS,
// hence img-src data:; scripts, styles and requests come from this origin only.
const CSP =
  "default-src 'self'; img-src 'self' data:; base-uri 'self'; form-action 'self'; frame-ancestors 'self'; object-src 'none'";

// Our own init script and styles are files, not inline: the CSP allows no inline code.
const INIT_JS = `'use strict';
(function () {
  var el = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: el.getAttribute('data-spec-url'),
    domNode: el,
    // The URL fragment is ours (#problem-<code>), not Swagger UI's deep links.
    deepLinking: false,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
})();
`;

const DOCS_CSS = `body { margin: 0; font-family: system-ui, sans-serif; color: #1b1b1b; }
.docs-header, #problem-types { max-width: 1460px; margin: 0 auto; padding: 0 20px; }
.docs-header nav a { margin-right: 1em; }
#problem-types table { border-collapse: collapse; width: 100%; }
#problem-types th, #problem-types td { text-align: left; vertical-align: top; padding: 6px 10px; border-bottom: 1px solid #ddd; }
#problem-types tr:target { background: #fff3c4; }
#problem-types td:first-child { white-space: nowrap; }
`;

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Escapes, then renders `x` as code. */
const prose = (s: string) => escapeHtml(s).replace(/`([^`]+)`/g, '<code>$1</code>');

function problemTypes(): string {
  const rows = (Object.entries(ERROR_CODES) as Array<[ErrorCode, (typeof ERROR_CODES)[ErrorCode]]>).map(
    ([code, e]) =>
      `<tr id="problem-${escapeHtml(code)}"><td><code>${escapeHtml(code)}</code></td><td>${e.status}</td><td>${escapeHtml(e.title)}</td><td>${prose(e.meaning)}</td></tr>`,
  );
  return `<section id="problem-types">
<h2>Problem types</h2>
<p>Every error names one of these codes: <code>code</code> in a Surface A envelope, and <code>code</code> and <code>type</code>
(<code>/v0/docs#problem-&lt;code&gt;</code>, a link to its row here) in a Surface B problem (RFC 9457).</p>
<table>
<thead><tr><th>Code</th><th>Status</th><th>Title</th><th>What it means, what to do</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>
</section>`;
}

function page(prefix: string, href: (name: string) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Compute job service: API reference</title>
<link rel="stylesheet" href="${href('swagger-ui.css')}">
<link rel="stylesheet" href="${href('docs.css')}">
</head>
<body>
<header class="docs-header">
<h1>Compute job service</h1>
<nav><a href="#problem-types">Problem types</a><a href="#reference">API reference</a><a href="${prefix}/openapi.json">openapi.json</a></nav>
</header>
${problemTypes()}
<main id="reference">
<noscript><p>The API reference needs JavaScript; the document itself is at <a href="${prefix}/openapi.json">${prefix}/openapi.json</a>.</p></noscript>
<div id="swagger-ui" data-spec-url="${prefix}/openapi.json"></div>
</main>
<script src="${href('swagger-ui-bundle.js')}"></script>
<script src="${href('docs.js')}"></script>
</body>
</html>
`;
}

const send = (ctx: Context, a: Asset, cacheControl: string) =>
  sendAsset(ctx, a, cacheControl, { 'Content-Security-Policy': CSP });

/**
 * `GET /api/docs` and `/v0/docs` (the same page; each links its own surface's copy of the one
 * document), and their assets at `<prefix>/docs/assets/<name>`. Open: no credentials.
 */
export function docsRoutes(): Router {
  // Read at boot: a missing package fails the start, not a reader's first visit.
  const dist = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  const assets: Record<string, Asset> = {
    'swagger-ui-bundle.js': asset(
      fs.readFileSync(path.join(dist, 'swagger-ui-bundle.js')),
      'text/javascript; charset=utf-8',
    ),
    'swagger-ui.css': asset(fs.readFileSync(path.join(dist, 'swagger-ui.css')), 'text/css; charset=utf-8'),
    'docs.js': asset(INIT_JS, 'text/javascript; charset=utf-8'),
    'docs.css': asset(DOCS_CSS, 'text/css; charset=utf-8'),
  };
  const router = newRouter();
  for (const prefix of ['/api', '/v0']) {
    const href = (name: string) => `${prefix}/docs/assets/${name}?v=${assets[name].hash}`;
    const html = asset(page(prefix, href), 'text/html; charset=utf-8');
    // Revalidated each time (it is small, and the vocabulary changes with a deploy).
    router.get(`${prefix}/docs`, (ctx) => send(ctx, html, 'no-cache'));
    router.get(`${prefix}/docs/assets/:name`, (ctx, next) => {
      const a = Object.hasOwn(assets, ctx.params.name) ? assets[ctx.params.name] : undefined;
      if (!a) return next();
      // The page asks with the content's hash, so that URL never changes meaning: cache it for good.
      // Any other (an old page during a deploy) gets today's bytes, revalidated.
      send(ctx, a, ctx.query.v === a.hash ? 'public, max-age=31536000, immutable' : 'no-cache');
    });
  }
  return router;
}
