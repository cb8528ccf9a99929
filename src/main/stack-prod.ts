import os from 'node:os';
import path from 'node:path';
import { ensureDevApiKey } from '../auth/dev-key';
import { loadDevConfig } from '../config';
import { createDb } from '../db/knex';
import { createLogger } from '../logging/logger';
import { DEBIAN_PACKAGE_VERSIONS, ensureDebianPackage } from '../stack/debian-packages';
import { startProdStack } from '../stack/prod-stack';
import { ensureDefaultWorkspace, ensureOperatorWorkspace } from '../workspaces/rows';
import { printAddresses } from './banner';
import { runUntilSignal } from './run-until-signal';

// `npm run stack:prod`: the service as docker-compose.yml runs it, on this machine without
// containers. The Temporal server on PostgreSQL (not the dev server), two API and two worker
// processes behind a gateway, an agent and a managed-pool agent as processes of their own; every
// one is restarted if it dies. On the ports `npm run dev` uses (so not both at once), its data
// under COMPUTE_DATA_DIR/prod; the API key for the CLI is kept where `npm run dev` keeps its own.
async function main() {
  const base = loadDevConfig();
  const log = createLogger(base.logLevel, 'stack');
  const say = (msg: string) => process.stderr.write(`${msg}\n`);
  const dataDir = path.join(base.dataDir, 'prod');
  say(`compute stack:prod: data in ${dataDir}`);
  const stack = await startProdStack({
    dataDir,
    toolsDir: base.toolsDir,
    ports: {
      gateway: base.http.port,
      postgres: base.dev.postgresPort,
      temporal: base.dev.temporalPort,
      temporalUi: base.dev.temporalUiPort,
      minio: base.dev.minioPort,
      minioConsole: base.dev.minioConsolePort,
      stripeMock: base.dev.stripeMockPort,
    },
    log: (msg) => say(`  ${msg}`),
  });
  const db = createDb(stack.databaseUrl);
  const workspaceId = await ensureDefaultWorkspace(db);
  const key = await ensureDevApiKey(db, base.dataDir, workspaceId);
  const managedKey = await ensureDevApiKey(db, dataDir, await ensureOperatorWorkspace(db), 'managed');
  await db.destroy();

  const host = os.hostname();
  const agentArgs = (name: string) => [
    'agent',
    '--name',
    name,
    '--concurrency',
    '2',
    '--dir',
    path.join(dataDir, name),
  ];
  stack.spawn('agent', 'src/cli/main.ts', [...agentArgs(`${host}-prod`), '--label', 'dev=true'], {
    COMPUTE_API_URL: stack.url,
    COMPUTE_AGENT_KEY: key,
  });
  // The managed pool's agent runs every job in its sandbox, which needs root and bubblewrap.
  const managed = process.getuid?.() === 0;
  if (managed) {
    await ensureDebianPackage('bubblewrap', DEBIAN_PACKAGE_VERSIONS.bubblewrap, (msg) => say(`  ${msg}`));
    stack.spawn('managed-agent', 'src/cli/main.ts', [...agentArgs(`${host}-prod-managed`), '--region', 'local'], {
      COMPUTE_API_URL: stack.url,
      COMPUTE_AGENT_KEY: managedKey,
    });
  }
  const logs = path.join(dataDir, 'logs');
  printAddresses(say, {
    url: stack.url,
    temporalAddress: stack.temporalAddress,
    namespace: 'default',
    taskQueue: 'compute-jobs',
    temporalUiUrl: stack.temporalUiUrl,
    databaseUrl: stack.databaseUrl,
    s3: stack.s3,
    stripe: `stripe-mock at ${stack.stripeUrl}`,
    loginCodes: path.join(logs, 'api-*.log'),
    agents: [
      `Processes      ${stack.apis.length} APIs and ${stack.workers.length} workers behind the gateway at ${stack.url}; logs in ${logs}`,
      `Agent          ${host}-prod   (labels dev=true, 2 jobs at once)`,
      managed
        ? `Managed agent  ${host}-prod-managed   (managed pool, region local)`
        : 'Managed agent  not started: the sandbox needs root',
    ],
    workspaceId,
    key,
  });
  runUntilSignal(log, async () => {
    say('stopping the agents, the APIs, the workers, Temporal, MinIO and PostgreSQL');
    await stack.stop();
    say('stopped');
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
