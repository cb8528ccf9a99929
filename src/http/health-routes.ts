import Router from '@koa/router';
import { registry } from '../metrics/registry';
import type { ReadinessReport } from '../runtime/readiness';

export interface HealthDeps {
  readiness: () => Promise<ReadinessReport>;
  /** More Prometheus text to serve after ours (the Temporal SDK's worker metrics). */
  moreMetrics?: () => Promise<string>;
}

/**
 * `/healthz`: the process answers (liveness; restart it when this fails). `/readyz`: its
 * dependencies answer (send it traffic only when this is 200). `/metrics`: Prometheus text. No
 * credentials: keep these off the public entry point (deploy/nginx.conf does).
 */
export function healthRoutes(deps: HealthDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.state.raw = true;
    ctx.body = { ok: true };
  });
  router.get('/readyz', async (ctx) => {
    ctx.state.raw = true;
    const report = await deps.readiness();
    ctx.status = report.ready ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = report;
  });
  router.get('/metrics', async (ctx) => {
    ctx.state.raw = true;
    const [ours, more] = await Promise.all([registry.metrics(), deps.moreMetrics?.() ?? '']);
    ctx.type = registry.contentType;
    ctx.body = more ? `${ours}\n${more}` : ours;
  });
  return router;
}

/** The Temporal SDK's own metrics, read from its exporter on loopback; a comment when it is not there. */
export function sdkMetricsFrom(port: number): () => Promise<string> {
  return async () => {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) });
      if (!res.ok) return `# Temporal SDK metrics unavailable: HTTP ${res.status}\n`;
      return await res.text();
    } catch (err) {
      return `# Temporal SDK metrics unavailable: ${(err as Error).message}\n`;
    }
  };
}
