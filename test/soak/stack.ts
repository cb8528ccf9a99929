import path from 'node:path';
import { createApiKey } from '../../src/auth/api-keys';
import { createDb } from '../../src/db/knex';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../../src/stack/debian-packages';
import { freePort } from '../../src/stack/ports';
import { type ProdStack, startProdStack } from '../../src/stack/prod-stack';
import type { Supervised } from '../../src/stack/supervisor';
import { ensureOperatorWorkspace } from '../../src/workspaces/rows';
import { type TcpProxy, startTcpProxy } from '../support/tcp-proxy';

// The production-shaped stack the soak runs on, with TCP relays between the service processes
// and PostgreSQL and Temporal (the soak cuts their connections), and the agents that run its jobs.

/** The service's timers shortened so that losses, cancels, retries and ticks happen within a soak. */
export const SOAK_SERVICE_ENV: Record<string, string> = {
  AGENT_LOST_AFTER_MS: '8000',
  AGENT_LOSS_BACKOFF_MS: '500',
  CANCEL_GRACE_MS: '3000',
  AGENT_KILL_GRACE_MS: '1000',
  HEARTBEAT_INTERVAL_SECONDS: '1',
  METER_TICK_SECONDS: '2',
  DEPENDENCY_RETRY_AFTER_SECONDS: '1',
  WEBHOOK_FIRST_RETRY_MS: '1000',
  WEBHOOK_MAX_RETRY_DELAY_MS: '4000',
  WEBHOOK_RELAY_INTERVAL_MS: '200',
  JWT_TTL_SECONDS: '86400',
  OTP_MAX_PER_HOUR: '1000',
};

export interface SoakStack {
  stack: ProdStack;
  dataDir: string;
  logsDir: string;
  pgRelay: TcpProxy;
  temporalRelay: TcpProxy;
  /** The agents' supervised processes (self-hosted ones first, then the managed one when there is one). */
  agents: Supervised[];
  /** Whether a managed-pool agent runs (root and bubblewrap). */
  managed: boolean;
  stop(): Promise<void>;
}

export async function startSoakStack(o: {
  dataDir: string;
  toolsDir: string;
  log: (msg: string) => void;
}): Promise<SoakStack> {
  const ports = {
    gateway: await freePort(),
    postgres: await freePort(),
    temporal: await freePort(),
    minio: await freePort(),
    minioConsole: await freePort(),
    stripeMock: await freePort(),
  };
  // The relays forward to ports nothing listens on yet: each connection is made when a client opens one.
  const pgRelay = await startTcpProxy({ host: '127.0.0.1', port: ports.postgres });
  const temporalRelay = await startTcpProxy({ host: '127.0.0.1', port: ports.temporal });
  const closeRelays = async () => {
    await pgRelay.close();
    await temporalRelay.close();
  };
  let stack: ProdStack;
  try {
    stack = await startProdStack({
      dataDir: o.dataDir,
      toolsDir: o.toolsDir,
      ports,
      env: {
        ...SOAK_SERVICE_ENV,
        DATABASE_URL: `postgres://postgres:postgres@${pgRelay.address}/compute`,
        TEMPORAL_ADDRESS: temporalRelay.address,
      },
      log: o.log,
    });
  } catch (err) {
    await closeRelays();
    throw err;
  }
  const managed = process.getuid?.() === 0;
  if (managed)
    await ensureDebianPackage('bubblewrap', DEBIAN_PACKAGE_VERSIONS.bubblewrap, o.log).catch(async (err) => {
      await stack.stop();
      await closeRelays();
      throw err;
    });
  return {
    stack,
    dataDir: o.dataDir,
    logsDir: path.join(o.dataDir, 'logs'),
    pgRelay,
    temporalRelay,
    agents: [],
    managed,
    async stop() {
      await stack.stop();
      await closeRelays();
    },
  };
}

/**
 * Two self-hosted agents of the workspace and, when the host allows the sandbox, one agent of the
 * managed pool (region `local`), each a supervised reference agent process.
 */
export async function startAgents(s: SoakStack, workspaceId: string): Promise<void> {
  const db = createDb(s.stack.databaseUrl);
  try {
    const { key } = await createApiKey(db, { workspaceId, name: 'soak agents', kind: 'agent' });
    const managedKey = s.managed
      ? (await createApiKey(db, { workspaceId: await ensureOperatorWorkspace(db), name: 'soak', kind: 'managed' })).key
      : undefined;
    const agent = (name: string, agentKey: string, extra: string[]) =>
      s.stack.spawn(
        name,
        'src/cli/main.ts',
        ['agent', '--name', name, '--concurrency', '3', '--dir', path.join(s.dataDir, name), ...extra],
        { COMPUTE_API_URL: s.stack.url, COMPUTE_AGENT_KEY: agentKey },
      );
    s.agents.push(agent('soak-agent-1', key, ['--label', 'soak=true']));
    s.agents.push(agent('soak-agent-2', key, ['--label', 'soak=true']));
    if (managedKey) s.agents.push(agent('soak-managed', managedKey, ['--region', 'local']));
  } finally {
    await db.destroy();
  }
}
