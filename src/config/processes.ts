import { z } from 'zod';
import {
  AgentVariables,
  ApiVariables,
  CliVariables,
  DevVariables,
  SharedVariables,
  WorkerVariables,
} from './variables';

// What each process parses from the environment: its own section and the few variables of another
// it reads. A process never parses the rest, so a bad value there is none of its business (a bad
// WEBHOOK_SECRET_KEYS in a developer's shell does not stop `compute login`).

export type Env = Record<string, string | undefined>;

const {
  COMPUTE_DATA_DIR,
  LOG_LEVEL,
  DATABASE_URL,
  STRIPE_WEBHOOK_SECRET,
  OTEL_EXPORTER_OTLP_ENDPOINT,
  OTEL_SERVICE_NAME,
  OTEL_TRACES_SAMPLER_ARG,
} = SharedVariables.shape;
const { COMPUTE_API_URL, COMPUTE_API_KEY } = CliVariables.shape;
const { METER_TICK_SECONDS, BILLING_PERIOD } = WorkerVariables.shape;
const { DEV_POSTGRES_PORT, COMPUTE_TOOLS_DIR } = DevVariables.shape;

export const ApiProcessVariables = z.object({ ...SharedVariables.shape, ...ApiVariables.shape });
export const WorkerProcessVariables = z.object({ ...SharedVariables.shape, ...WorkerVariables.shape });
/** The API and the worker in one process (`npm run dev`, the tests, the benches). */
export const ServiceProcessVariables = z.object({ ...ApiProcessVariables.shape, ...WorkerVariables.shape });
/** `npm run dev`: the API and the worker, the services it starts, the grace of its agents. */
export const DevProcessVariables = z.object({
  ...ServiceProcessVariables.shape,
  ...DevVariables.shape,
  AGENT_KILL_GRACE_MS: AgentVariables.shape.AGENT_KILL_GRACE_MS,
});
/** The CLI: its own, and the data folder where `npm run dev` keeps a key for it. */
export const CliProcessVariables = z.object({ ...CliVariables.shape, COMPUTE_DATA_DIR });
/** `compute agent`: its own, the API it serves and the key it falls back on, its log level and where its spans go. */
export const AgentProcessVariables = z.object({
  ...AgentVariables.shape,
  COMPUTE_API_URL,
  COMPUTE_API_KEY,
  LOG_LEVEL,
  OTEL_EXPORTER_OTLP_ENDPOINT,
  OTEL_SERVICE_NAME,
  OTEL_TRACES_SAMPLER_ARG,
});

// Read where they are used, by a command that needs them and no other: the operator's commands on
// the database (and `npm run migrate`), closing a billing period, signing a simulated Stripe event,
// where local tools are built.
export const DatabaseVariables = z.object({ DATABASE_URL, DEV_POSTGRES_PORT });
export const BillingVariables = z.object({ METER_TICK_SECONDS, BILLING_PERIOD });
export const StripeSigningVariables = z.object({ STRIPE_WEBHOOK_SECRET });
export const ToolsVariables = z.object({ COMPUTE_TOOLS_DIR });

/** What each process parses when it starts. */
export const PROCESS_VARIABLES = {
  api: ApiProcessVariables,
  worker: WorkerProcessVariables,
  cli: CliProcessVariables,
  agent: AgentProcessVariables,
  dev: DevProcessVariables,
} as const;

/** The variables `schema` names, validated and defaulted; one error naming every bad one. */
export function parseVariables<S extends z.ZodType>(schema: S, env: Env): z.output<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) throw invalidConfiguration(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  return parsed.data;
}

export const invalidConfiguration = (problems: string[]) => new Error(`Invalid configuration: ${problems.join('; ')}`);
