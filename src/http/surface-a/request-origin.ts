import type { Context } from 'koa';

/** Where the caller reached us (Koa 3's ctx.origin is the Origin header, not this). */
export const requestOrigin = (ctx: Context) => originOf(ctx.protocol, ctx.host);

export const originOf = (protocol: string, host: string) => `${protocol}://${host}`;
