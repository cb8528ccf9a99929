import os from 'node:os';
import path from 'node:path';
import {
  AgentProcessVariables,
  CliProcessVariables,
  type Env,
  StripeSigningVariables,
  parseVariables,
} from './processes';
import type { AgentConfig, CliConfig } from './shape';

// The CLI and the reference agent it runs (`compute agent`): each parses its own variables and
// none of the service's, so whatever a developer's shell holds for the service stops neither.

/** The CLI's settings, read by each command that needs them (never for --help). */
export function loadCliConfig(env: Env = process.env): CliConfig {
  const e = parseVariables(CliProcessVariables, env);
  return {
    apiUrl: e.COMPUTE_API_URL,
    configDir: path.resolve(e.COMPUTE_CONFIG_DIR ?? path.join(os.homedir(), '.config', 'compute')),
    apiKey: e.COMPUTE_API_KEY,
    desktop: Boolean(e.DISPLAY || e.WAYLAND_DISPLAY),
    dataDir: path.resolve(e.COMPUTE_DATA_DIR ?? '.data'),
  };
}

/** `compute agent`'s settings. */
export function loadAgentConfig(env: Env = process.env): AgentConfig {
  const e = parseVariables(AgentProcessVariables, env);
  return {
    logLevel: e.LOG_LEVEL,
    apiUrl: e.COMPUTE_API_URL,
    key: e.COMPUTE_AGENT_KEY,
    apiKey: e.COMPUTE_API_KEY,
    dir: path.resolve(e.COMPUTE_AGENT_DIR ?? path.join(os.homedir(), '.compute-agent')),
    killGraceMs: e.AGENT_KILL_GRACE_MS,
    tracing: {
      endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT || undefined,
      serviceName: e.OTEL_SERVICE_NAME || undefined,
      sampleRatio: e.OTEL_TRACES_SAMPLER_ARG,
    },
  };
}

/** STRIPE_WEBHOOK_SECRET, which `compute billing simulate-event` signs with when given no --secret. */
export const loadStripeWebhookSecret = (env: Env = process.env): string | undefined =>
  parseVariables(StripeSigningVariables, env).STRIPE_WEBHOOK_SECRET;
