import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import type { Services } from '../services';

/** What app.ts gives each surface to build its app from. */
export interface SurfaceDeps {
  services: Services;
  config: ApiConfig;
  log: Logger;
  /** The JSON body parser: a surface runs it only after the caller is known and within budget. */
  json: Middleware;
  /** The one OpenAPI registry both surfaces document their operations in. */
  registry: OpenAPIRegistry;
}
