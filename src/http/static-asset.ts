import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { Context } from 'koa';

// Files the API serves from memory (the docs page, the portal): read once, sent with a content
// hash as ETag and gzipped once when the client takes it. There is no compression middleware.

export interface Asset {
  body: Buffer;
  type: string;
  /** Content hash: the ETag, and what makes a URL naming it safe to cache for good. */
  hash: string;
  gzipped?: Buffer;
}

export const asset = (body: Buffer | string, type: string): Asset => {
  const buf = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return { body: buf, type, hash: createHash('sha256').update(buf).digest('hex').slice(0, 16) };
};

/** Sends `a` with `headers` (its security policy) and `cacheControl`; 304 when the client has it. */
export function sendAsset(ctx: Context, a: Asset, cacheControl: string, headers: Record<string, string>): void {
  ctx.set(headers);
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('ETag', `"${a.hash}"`);
  ctx.vary('Accept-Encoding');
  ctx.type = a.type;
  ctx.status = 200;
  if (ctx.fresh) {
    ctx.status = 304;
    return;
  }
  if (a.body.length > 1024 && ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    a.gzipped ??= gzipSync(a.body);
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = a.gzipped;
  } else {
    ctx.body = a.body;
  }
}
