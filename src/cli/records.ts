import type { components, paths } from '../../clients/typescript/src/schema';

// The records the CLI reads from the API: the typed client's, generated from the OpenAPI document
// (clients/typescript), so a field the API changes changes here too, or fails the typecheck.

type Schemas = components['schemas'];

/** A job as Surface A answers it (`/api/compute/jobs/*`). */
export type JobRecord = Schemas['JobA'];
export type AgentRecord = Schemas['Agent'];
export type WebhookRecord = Schemas['Webhook'];
/** A webhook as its creation answers it: with its signing secret, shown only then. */
export type CreatedWebhookRecord = paths['/v0/webhooks']['post']['responses'][201]['content']['application/json'];
export type DeliveryRecord = Schemas['WebhookDelivery'];
export type MemberRecord = Schemas['Member'];
export type TokenRecord = Schemas['AccessToken'];
export type WorkspaceRecord = Schemas['Workspace'];
