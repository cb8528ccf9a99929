import type { Context } from 'koa';

/** Where the caller reached us (Koa 3's ctx.origin is the Origin header, not this). */
export const requestOrigin = (ctx: Context) => `${ctx.protocol}://${ctx.host}`;
