// The one place that reads the environment (with ./variables, its schema, and ./processes, what
// each process parses of it). Each process loads its own settings; everything else receives them.

export type {
  AgentConfig,
  ApiConfig,
  ApiSettings,
  BillingPeriod,
  BillingSettings,
  CliConfig,
  DeploymentSettings,
  DevConfig,
  Durations,
  ServiceConfig,
  SharedSettings,
  StripeSettings,
  WorkerConfig,
  WorkerSettings,
} from './shape';
export type { WebhookSettings } from './webhooks';
export { ALL_VARIABLES, EnvSchema, SECTIONS, type Section, type VariableName } from './variables';
export { PROCESS_VARIABLES } from './processes';
export {
  DEV_STRIPE_WEBHOOK_SECRET,
  loadApiConfig,
  loadBillingSettings,
  loadDatabaseUrl,
  loadDevConfig,
  loadServiceConfig,
  loadToolsDir,
  loadWorkerConfig,
} from './server';
export { loadAgentConfig, loadCliConfig, loadStripeWebhookSecret } from './cli';

/** What a job's command inherits from the agent: enough to run a shell, none of the agent's secrets. */
const JOB_INHERITED_VARIABLES = ['PATH', 'HOME', 'LANG', 'TERM', 'TMPDIR'];

/** The environment a job starts with: the allow-listed variables of the agent's, then `extra`. */
export function jobEnvironment(extra: Record<string, string>): Record<string, string> {
  const inherited = Object.fromEntries(
    JOB_INHERITED_VARIABLES.flatMap((name) => (process.env[name] === undefined ? [] : [[name, process.env[name]!]])),
  );
  return { ...inherited, ...extra };
}

/** The environment for a child process we spawn (a tool build, a server): ours plus `extra`. */
export function childEnvironment(extra: Record<string, string> = {}): Record<string, string | undefined> {
  return { ...process.env, ...extra };
}

/** The environment for a child process that finds its tools in `dir` before anything on PATH. */
export function childEnvironmentWithPath(
  dir: string,
  extra: Record<string, string> = {},
): Record<string, string | undefined> {
  return childEnvironment({ ...extra, PATH: `${dir}:${process.env.PATH ?? ''}` });
}
