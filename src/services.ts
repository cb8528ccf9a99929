import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { silentAttempts } from './agents/liveness';
import { createAgentsService } from './agents/service';
import type { ObjectStore } from './artifacts/object-store';
import { createArtifactsService } from './artifacts/service';
import { createPlans } from './billing/plans';
import { createSubscriptions } from './billing/subscription';
import { createUsage } from './billing/usage';
import { createLimits } from './billing/limits';
import { createInvoices } from './billing/invoice-reads';
import { createCheckout } from './billing/checkout';
import { stripeClient } from './billing/stripe-client';
import type { DataKeys } from './crypto/data-keys';
import { createStripeEvents } from './billing/stripe-events';
import { createUrlSigner } from './artifacts/signed-urls';
import { keyUseStamps } from './auth/key-use-stamps';
import { createCredentialCache } from './auth/credential-cache';
import { createTokenIssuer } from './auth/jwt';
import { createKeyService } from './auth/key-service';
import { createLoginService } from './auth/login';
import { createAuthService } from './auth/service';
import { mailerFor } from './auth/mailer';
import type { ApiConfig } from './config';
import type { Notifier } from './db/notifier';
import { createJobsService } from './jobs/service';
import { type AuditEntry, appendAudit } from './audit/log';
import { createAuditQuery } from './audit/query';
import { createTokenService } from './auth/token-service';
import { createWorkspacesService } from './workspaces/service';
import { logFollows } from './jobs/log-follows';
import { createLogFeeds } from './logs/feeds';
import { createLogsService } from './logs/service';
import { createTransitions } from './jobs/transitions';
import { type WindowSpec, createLeasedLimiter } from './rate-limits/leased-limiter';
import { TripRiders } from './db/trip-riders';
import { createLeaseStore } from './rate-limits/lease-store';
import type { JobWorkflowClient } from './temporal/job-workflow-client';
import type { WebhookWorkflows } from './temporal/webhook-workflow-client';
import { createWebhooksService } from './webhooks/service';
import type { SecretBox } from './webhooks/secret-box';
import type { Resolver } from './webhooks/target-guard';

export interface ServiceDeps {
  db: Knex;
  workflows: JobWorkflowClient;
  /** Starts webhook redeliveries; absent, a redelivery answers 503. */
  webhookWorkflows?: WebhookWorkflows;
  /** How webhook target hostnames are resolved (tests inject one). */
  resolve?: Resolver;
  /** Seals webhook signing secrets at rest (see resolveWebhookSecretKeys). */
  webhookSecrets: SecretBox;
  /** Each workspace's data key, which seals its job env at rest (src/crypto/data-keys.ts). */
  dataKeys: DataKeys;
  notifier: Notifier;
  config: ApiConfig;
  log: Logger;
  /** Resolved by the caller: it may come from the data folder (see resolveJwtSecret). */
  jwtSecret: string;
  /** Artifact storage; absent when no S3_ENDPOINT is configured (artifact calls answer 503). */
  store?: ObjectStore;
}

/** The composition root of the domain services; neither HTTP surface is known here. */
export function createServices(deps: ServiceDeps) {
  const { db, config, log, jwtSecret } = deps;
  const tokens = createTokenIssuer({
    secret: jwtSecret,
    previousSecret: config.auth.jwtPreviousSecret,
    issuer: config.auth.jwtIssuer,
    audience: config.auth.jwtAudience,
    ttlSeconds: config.auth.jwtTtlSeconds,
  });
  const mailer = mailerFor(config, log);
  const signer = createUrlSigner(jwtSecret);
  // Rate-limit leases asked ahead of need ride the job writes' transactions.
  const riders = new TripRiders();
  const transitions = createTransitions({ ...deps, silentAttempts, riders });
  const leases = createLeaseStore({ db, log, riders, leaseMs: config.rateLimits.leaseMs });
  const logs = createLogsService({ ...deps, turns: transitions.turns });
  const keyStamps = keyUseStamps(db);
  const credentials = createCredentialCache({
    db,
    notifier: deps.notifier,
    ttlMs: config.auth.credentialCacheTtlMs,
    maxEntries: config.auth.credentialCacheMaxEntries,
    stamp: keyStamps.stamp,
  });
  const agentsService = createAgentsService({ ...deps, transitions, credentials });
  const auth = createAuthService({ db, credentials, tokens, stampLater: keyStamps.stamp });
  return {
    /** Keys' last-used stamps waiting for their window; flushed on stop. */
    keyStamps,
    /** Rate-limit leases waiting to ride or under way; stopped before the pool goes. */
    leaseStore: leases,
    transitions,
    jobs: createJobsService({ ...deps, transitions, waitingPolls: agentsService.waitingPolls }),
    artifacts: createArtifactsService({ db, store: deps.store, signer, config }),
    signer,
    agents: agentsService,
    logs,
    feeds: createLogFeeds({ logs, notifier: deps.notifier, log }),
    /** Marks a job's log followed, so its end notifies (src/jobs/log-follows.ts). */
    logFollows: logFollows(db),
    login: createLoginService({ db, mailer, tokens, hashKey: `otp:${jwtSecret}`, auth: config.auth, log }),
    keys: createKeyService({ db, credentials }),
    workspaces: createWorkspacesService({ db, credentials, counts: config.counts, agents: agentsService }),
    accessTokens: createTokenService({ db, credentials, maxLive: config.counts.accessTokens }),
    webhooks: createWebhooksService({
      db,
      config,
      workflows: deps.webhookWorkflows,
      resolve: deps.resolve,
      secrets: deps.webhookSecrets,
    }),
    tokens,
    credentials,
    auth,
    audit: createAuditQuery({ db, authorize: auth.authorize }),
    /** Appends an entry of its own to the audit log (a read of secrets through the codec). */
    auditLog: { append: (entry: AuditEntry) => appendAudit(db, entry) },
    plans: createPlans({ db }),
    subscriptions: createSubscriptions({ db }),
    usage: createUsage({ db }),
    limits: createLimits({ db }),
    invoices: createInvoices({ db }),
    checkout: createCheckout({ db, stripe: stripeClient(config.stripe), log }),
    stripeEvents: createStripeEvents({
      db,
      webhookSecret: config.stripe.webhookSecret,
      toleranceSeconds: config.stripe.eventToleranceSeconds,
    }),
    /** A request budget of these windows, shared by every API instance (see leased-limiter.ts). */
    leasedLimiter: (windows: WindowSpec[]) =>
      createLeasedLimiter({ store: leases, windows, leaseMs: config.rateLimits.leaseMs }),
    notifier: deps.notifier,
  };
}

export type Services = ReturnType<typeof createServices>;
