// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { ERROR_CODES } from '../../src/shared/errors';
import { testEnv } from '../support/env';
import { v0 } from '../support/v0';

const get = (path: string, headers: Record<string, string> = {}) => fetch(new URL(path, testEnv().url), { headers });

async function docsPage(path: string) {
  const res = await get(path);
  const html = await res.text();
  return { res, html, ids: new Set([...html.matchAll(/\bid="([^"]+)"/g)].map((m) => m[1])) };
}

const attrs = (html: string, tag: string, attr: string) =>
  [...html.matchAll(new RegExp(`<${tag}\\b[^>]*\\b${attr}="([^"]+)"`, 'g'))].map((m) => m[1]);
const decodeEntities = (s: string) =>
  s.replace(/&#(\d+);/g, (_, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');

describe('The docs page', () => {
  for (const prefix of ['/v0', '/api']) {
    it(`${prefix}/docs: HTML without credentials, only this origin allowed, a row per error code with its status and title`, async () => {
      const { res, html, ids } = await docsPage(`${prefix}/docs`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      assert.match(csp, /default-src 'self'/);
      assert.doesNotMatch(csp, /unsafe-|https?:|\*/, 'nothing beyond this origin (and data: images)');
      assert.ok(ids.has('problem-types'));
      const codes = Object.keys(ERROR_CODES) as Array<keyof typeof ERROR_CODES>;
      assert.ok(codes.length >= 16);
      for (const code of codes) {
        assert.ok(ids.has(`problem-${code}`), `anchor for ${code}`);
        const row =
          html.match(new RegExp(`<tr id="problem-${code.replace(/\./g, '\\.')}">([\\s\\S]*?)</tr>`))?.[1] ?? '';
        const text = decodeEntities(row.replace(/<[^>]+>/g, ''));
        assert.ok(
          row.includes(`<td>${ERROR_CODES[code].status}</td>`),
          `${code}: status ${ERROR_CODES[code].status} in ${row}`,
        );
        assert.ok(text.includes(ERROR_CODES[code].title), `${code}: title`);
        assert.ok(text.includes(ERROR_CODES[code].meaning.replace(/`/g, '')), `${code}: meaning`);
      }
      // The page has no inline script (the CSP would block it): every script is a file of ours.
      assert.equal([...html.matchAll(/<script\b(?![^>]*\bsrc=)/g)].length, 0, 'no inline script');
      // What the renderer reads: this surface's copy of the one OpenAPI 3.1 document.
      const specUrl = attrs(html, 'div', 'data-spec-url')[0];
      assert.equal(specUrl, `${prefix}/openapi.json`);
      const spec = (await (await get(specUrl)).json()) as { openapi: string; paths: Record<string, unknown> };
      assert.equal(spec.openapi, '3.1.0');
      assert.ok(spec.paths['/v0/workspaces'] && spec.paths['/api/compute/jobs/submit']);
    });
  }

  it('serves the renderer it references: JavaScript and CSS from this origin, cached by content hash, gzipped', async () => {
    const { html } = await docsPage('/v0/docs');
    const scripts = attrs(html, 'script', 'src');
    const styles = attrs(html, 'link', 'href').filter((h) => h.includes('.css'));
    assert.ok(
      scripts.some((s) => s.includes('swagger-ui-bundle.js')),
      `the renderer among ${scripts.join(', ')}`,
    );
    assert.ok(styles.length >= 1);
    for (const src of [...scripts, ...styles]) {
      assert.ok(src.startsWith('/v0/docs/assets/'), `${src} is served here, not from a CDN`);
      const res = await get(src);
      assert.equal(res.status, 200, src);
      assert.match(
        res.headers.get('content-type') ?? '',
        src.includes('.css') ? /^text\/css/ : /^text\/javascript/,
        src,
      );
      assert.match(res.headers.get('cache-control') ?? '', /max-age=31536000, immutable/, src);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      const body = await res.text();
      assert.ok(body.length > 200, `${src} is not empty`);
      // A revalidation of what the browser holds costs nothing. (fetch would add Cache-Control:
      // no-cache to a conditional request, which asks for the body: a browser's reload sends max-age=0.)
      const again = await get(src, { 'If-None-Match': res.headers.get('etag') ?? '', 'Cache-Control': 'max-age=0' });
      assert.equal(again.status, 304, src);
    }
    const bundle = await get(
      scripts.find((s) => s.includes('swagger-ui-bundle.js'))!,
      { 'Accept-Encoding': 'gzip' },
    );
    assert.equal(bundle.headers.get('content-encoding'), 'gzip');
    const code = await bundle.text(); // fetch decompresses
    assert.ok(code.length > 1_000_000, `the whole bundle (${code.length} bytes)`);
    assert.ok(code.includes('SwaggerUIBundle'));
    // Without the page's hash (an older page): the same bytes, but revalidated.
    const unversioned = await get('/v0/docs/assets/swagger-ui-bundle.js');
    assert.equal(unversioned.status, 200);
    assert.equal(unversioned.headers.get('cache-control'), 'no-cache');
    assert.equal((await unversioned.text()).length, code.length);
    // Only the listed files: no path into node_modules.
    assert.equal((await get('/v0/docs/assets/package.json')).status, 404);
    assert.equal((await get('/v0/docs/assets/..%2F..%2Fpackage.json')).status, 404);
  });

  it('a /v0 problem type links to its explanation on the page', async () => {
    const reply = await v0('GET', '/workspaces');
    assert.equal(reply.status, 401);
    const type = new URL(reply.body.type, testEnv().url);
    assert.equal(type.hash, '#problem-auth.unauthenticated');
    const { res, ids } = await docsPage(type.pathname);
    assert.equal(res.status, 200);
    assert.ok(ids.has(decodeURIComponent(type.hash.slice(1))), `${type.hash} exists on ${type.pathname}`);
  });
});
