export { job } from './job';
// Runs started before `job` replaced it finish on their own code.
export { jobWorkflow } from './legacy/job-v1';
export { webhookLane, webhookRedelivery } from './webhook-delivery';
export { meter } from './meter';
export { billingPeriod } from './billing-period';
