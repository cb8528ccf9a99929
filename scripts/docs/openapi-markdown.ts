import type { Middleware } from 'koa';
import pino from 'pino';
import { loadApiConfig } from '../../src/config';
import { buildDocument, newRegistry } from '../../src/http/openapi';
import { surfaceA } from '../../src/http/surface-a';
import { surfaceB } from '../../src/http/surface-b';
import type { Services } from '../../src/services';

// docs/reference/api.md from the OpenAPI document the API serves at /api/openapi.json and
// /v0/openapi.json. The document is built here as src/http/app.ts builds it (one registry, both
// surfaces registering their operations into it), with services that are never called: building
// the surfaces only declares routes, so nothing is started and nothing is connected to.

export type OpenApiDocument = ReturnType<typeof buildDocument>;

/** Services that answer every property and call with themselves: enough for routes to be declared. */
export function inertServices(): Services {
  const inert: unknown = new Proxy(function inert() {}, {
    // Not a thenable: an accidental await resolves instead of hanging.
    get: (_target, key) => (key === 'then' ? undefined : inert),
    apply: () => inert,
    construct: () => inert as object,
  });
  return inert as Services;
}

/** The API's settings as production has them, its secrets placeholders: the document depends on none of them. */
export const documentedConfig = () =>
  loadApiConfig({
    JWT_SECRET: 'placeholder-placeholder-placeholder-32',
    SMTP_URL: 'smtp://127.0.0.1:25',
    WEBHOOK_SECRET_KEYS: Buffer.alloc(32, 1).toString('base64'),
    TEMPORAL_CODEC_KEYS: Buffer.alloc(32, 2).toString('base64'),
  });

/** The served OpenAPI document, built in this process from the route definitions. */
export function openApiDocument(): OpenApiDocument {
  const registry = newRegistry();
  const json: Middleware = (_ctx, next) => next();
  const deps = { services: inertServices(), config: documentedConfig(), log: pino({ level: 'silent' }), json, registry };
  surfaceA(deps);
  surfaceB(deps);
  return buildDocument(registry);
}

interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  items?: Schema;
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  required?: string[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  format?: string;
}

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Response {
  description: string;
  content?: Record<string, { schema?: Schema }>;
  headers?: Record<string, unknown>;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Parameter[];
  requestBody?: { description?: string; content?: Record<string, { schema?: Schema }> };
  responses: Record<string, Response>;
}

/** Inline code, with a fence long enough for the backticks inside. */
export const code = (value: string): string => {
  const fence = '`'.repeat(Math.max(0, ...(value.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  return fence.length > 1 || /^ | $/.test(value) ? `${fence} ${value} ${fence}` : `${fence}${value}${fence}`;
};

/** One table cell: on one line, its pipes escaped. */
export const cell = (text: string): string => text.replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|').trim();

export const slug = (text: string): string => text.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

const schemaAnchor = (name: string) => `schema-${slug(name)}`;
const operationAnchor = (method: string, path: string) => `${method}-${slug(path)}`;
const refName = (ref: string) => ref.split('/').pop() ?? ref;
const literal = (value: unknown) => code(typeof value === 'string' ? value : JSON.stringify(value));
const NO_MAX = Number.MAX_SAFE_INTEGER;

function range(low: number | undefined, high: number | undefined, unit = ''): string | undefined {
  const hi = high === undefined || high >= NO_MAX ? undefined : high;
  if (low !== undefined && hi !== undefined) return low === hi ? `exactly ${low}${unit}` : `${low}–${hi}${unit}`;
  if (low !== undefined && low > 0) return `≥ ${low}${unit}`;
  if (hi !== undefined) return `≤ ${hi}${unit}`;
  return undefined;
}

/** A schema as a short phrase: its type, then its bounds and default. */
export function typeOf(schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return `[${refName(schema.$ref)}](#${schemaAnchor(refName(schema.$ref))})`;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return withDefault(alternatives.map(typeOf).join(' or '), schema);
  if (schema.allOf) return withDefault(schema.allOf.map(typeOf).join(' and '), schema);
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return withDefault(schema.enum.length === 1 ? literal(schema.enum[0]) : `one of ${schema.enum.map(literal).join(', ')}`, schema);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const base = types.length ? types.map((type) => baseType(type, schema)).join(' or ') : 'any';
  const bounds = [
    schema.format,
    range(schema.minLength, schema.maxLength, ' characters'),
    range(schema.minItems, schema.maxItems, ' items'),
    schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : undefined,
    range(schema.minimum, schema.exclusiveMaximum === undefined ? schema.maximum : undefined),
    schema.exclusiveMaximum !== undefined ? `< ${schema.exclusiveMaximum}` : undefined,
    schema.pattern ? `pattern ${code(schema.pattern)}` : undefined,
  ].filter(Boolean);
  return withDefault(bounds.length ? `${base}, ${bounds.join(', ')}` : base, schema);
}

function baseType(type: string, schema: Schema): string {
  if (type === 'array') return `array of ${typeOf(schema.items)}`;
  if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object') return `map of ${typeOf(schema.additionalProperties)}`;
  return type;
}

const withDefault = (phrase: string, schema: Schema) => (schema.default === undefined ? phrase : `${phrase}; default ${literal(schema.default)}`);

/** An object's fields, nested objects and arrays of objects flattened (`a.b`, `items[].c`). */
function fieldRows(schema: Schema, prefix = ''): string[] {
  const rows: string[] = [];
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    const path = `${prefix}${name}`;
    const required = schema.required?.includes(name) ? 'yes' : '';
    rows.push(`| ${code(path)} | ${cell(typeOf(field.properties ? { ...field, type: 'object' } : field))} | ${required} | ${cell(field.description ?? '')} |`);
    if (field.properties) rows.push(...fieldRows(field, `${path}.`));
    else if (field.items?.properties) rows.push(...fieldRows(field.items, `${path}[].`));
  }
  return rows;
}

function fieldsTable(schema: Schema): string[] {
  const rows = fieldRows(schema);
  return rows.length ? ['| field | type | required | description |', '|---|---|---|---|', ...rows] : [];
}

/** A body: a link to a named schema, or the fields of an inline one. */
function bodyLines(content: Record<string, { schema?: Schema }> | undefined): string[] {
  const lines: string[] = [];
  for (const [mediaType, { schema }] of Object.entries(content ?? {})) {
    if (schema?.properties) lines.push(`${code(mediaType)}:`, '', ...fieldsTable(schema), '');
    else lines.push(`${code(mediaType)}: ${typeOf(schema)}`, '');
  }
  return lines;
}

/** An inline object as `{a: type, b?: type}` (`?`: not required), for a table cell. */
function shapeOf(schema: Schema | undefined): string {
  if (!schema?.properties) return typeOf(schema);
  const fields = Object.entries(schema.properties).map(([name, field]) => `${name}${schema.required?.includes(name) ? '' : '?'}: ${shapeOf(field)}`);
  return `{${fields.join(', ')}}`;
}

function responseBody(response: Response): string {
  const parts = Object.entries(response.content ?? {}).map(([mediaType, { schema }]) => `${code(mediaType)} ${shapeOf(schema)}`);
  if (response.headers) parts.push(`headers ${Object.keys(response.headers).map(code).join(', ')}`);
  return parts.join('; ');
}

function credentials(operation: Operation): string {
  const schemes = (operation.security ?? []).flatMap((requirement) => Object.keys(requirement));
  return schemes.length ? schemes.map((name) => `[${name}](#security-${slug(name)})`).join(' or ') : 'none';
}

function operationLines(method: string, path: string, operation: Operation): string[] {
  const lines = [`<a id="${operationAnchor(method, path)}"></a>`, '', `#### ${code(`${method.toUpperCase()} ${path}`)}`, ''];
  if (operation.summary) lines.push(operation.summary, '');
  if (operation.description) lines.push(operation.description, '');
  lines.push(`Credentials: ${credentials(operation)}.`, '');
  if (operation.parameters?.length) {
    lines.push('| parameter | in | required | type | description |', '|---|---|---|---|---|');
    for (const p of operation.parameters) {
      const { description: _same, ...schema } = p.schema ?? {};
      lines.push(`| ${code(p.name)} | ${p.in} | ${p.required ? 'yes' : ''} | ${cell(typeOf(schema))} | ${cell(p.description ?? p.schema?.description ?? '')} |`);
    }
    lines.push('');
  }
  if (operation.requestBody) {
    lines.push('Request body:', '');
    if (operation.requestBody.description) lines.push(operation.requestBody.description, '');
    lines.push(...bodyLines(operation.requestBody.content));
  }
  lines.push('| status | meaning | body |', '|---|---|---|');
  for (const [status, response] of Object.entries(operation.responses)) {
    lines.push(`| ${status} | ${cell(response.description)} | ${cell(responseBody(response))} |`);
  }
  lines.push('');
  return lines;
}

const SURFACES = [
  { prefix: '/api', title: 'Surface A (`/api`)' },
  { prefix: '/v0', title: 'Surface B (`/v0`)' },
];

export function apiReference(document: OpenApiDocument): string {
  const paths = (document.paths ?? {}) as Record<string, Record<string, Operation>>;
  const operations = Object.entries(paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ path, method, operation })));
  const lines = [
    '<!-- Generated by `npm run docs` (scripts/docs.ts) from the OpenAPI document the API serves at /api/openapi.json and /v0/openapi.json. Do not edit: change the route definitions in src/http. -->',
    '',
    `# API reference: ${document.info.title} ${document.info.version}`,
    '',
    `OpenAPI ${document.openapi}; the same document is served at \`/api/openapi.json\` and \`/v0/openapi.json\`, and rendered by Swagger UI at \`/v0/docs\`. Error codes: [errors.md](errors.md).`,
    '',
    document.info.description ?? '',
    '',
    '## Credentials',
    '',
  ];
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, { type: string; in?: string; name?: string; scheme?: string; description?: string }>;
  for (const [name, scheme] of Object.entries(schemes)) {
    const where = scheme.type === 'http' ? `HTTP ${scheme.scheme}` : `${scheme.in} ${code(scheme.name ?? '')}`;
    lines.push(`<a id="security-${slug(name)}"></a>`, '', `- **${name}** (${where}): ${scheme.description ?? ''}`, '');
  }
  for (const surface of SURFACES) {
    const mine = operations.filter((o) => o.path === surface.prefix || o.path.startsWith(`${surface.prefix}/`));
    lines.push(`## ${surface.title}`, '');
    const tags = [...new Set(mine.map((o) => o.operation.tags?.[0] ?? 'other'))];
    for (const tag of tags) {
      const tagged = mine.filter((o) => (o.operation.tags?.[0] ?? 'other') === tag);
      lines.push(`- ${tag}: ${tagged.map((o) => `[${code(`${o.method.toUpperCase()} ${o.path}`)}](#${operationAnchor(o.method, o.path)})`).join(', ')}`);
    }
    lines.push('');
    for (const tag of tags) {
      lines.push(`### ${tag}`, '');
      for (const o of mine.filter((x) => (x.operation.tags?.[0] ?? 'other') === tag)) lines.push(...operationLines(o.method, o.path, o.operation));
    }
  }
  const others = operations.filter((o) => !SURFACES.some((s) => o.path === s.prefix || o.path.startsWith(`${s.prefix}/`)));
  if (others.length) {
    lines.push('## Other routes', '');
    for (const o of others) lines.push(...operationLines(o.method, o.path, o.operation));
  }
  lines.push('## Schemas', '');
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as Record<string, Schema>)) {
    lines.push(`<a id="${schemaAnchor(name)}"></a>`, '', `### ${name}`, '');
    if (schema.description) lines.push(schema.description, '');
    const table = fieldsTable(schema);
    lines.push(...(table.length ? table : [typeOf(schema)]), '');
  }
  return `${lines.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}
