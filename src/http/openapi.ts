import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

// The one OpenAPI 3.1 document of both surfaces: each surface registers its operations, from the
// same zod schemas that validate them, into one registry.

export function newRegistry(): OpenAPIRegistry {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'ApiKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: '`<prefix>_<secret>`: user, agent or node key',
  });
  registry.registerComponent('securitySchemes', 'Bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Session token from /api/auth/verify-otp (HS256, short-lived)',
  });
  registry.registerComponent('securitySchemes', 'SessionCookie', {
    type: 'apiKey',
    in: 'cookie',
    name: 'compute_session',
    description:
      'The portal’s session: the same JWT, set HttpOnly and SameSite=Strict by POST /api/auth/session (named `__Host-compute_session` when PUBLIC_URL is https). ' +
      'Taken wherever Bearer is, when no Authorization (nor, on /api, X-API-Key) header is sent; a POST, PUT, PATCH or DELETE it authenticates needs `X-Compute-CSRF: 1`, else 403 auth.forbidden',
  });
  return registry;
}

export function buildDocument(registry: OpenAPIRegistry) {
  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Compute job service',
      version: '0.1.0',
      description:
        'Surface A (/api): successful responses are {status: "OK", payload}; failures are {status: "ERROR", code, message, details?}. ' +
        'Surface B (/v0): Authorization: Bearer (a session JWT or a cpat_ access token) only; X-Compute-API-Version: v0 or absent; ' +
        'failures are RFC 9457 application/problem+json {type, title, status, detail, code, errors?}; lists are {items, nextPageToken}. ' +
        'Request bodies are JSON of at most 1 MiB; unknown fields are 400 request.invalid. IDs of another workspace are 404. ' +
        'A browser session (the portal) is the SessionCookie set by POST /api/auth/session instead of a Bearer token, on both surfaces; ' +
        'with it every POST, PUT, PATCH and DELETE carries X-Compute-CSRF: 1.',
    },
  });
}
