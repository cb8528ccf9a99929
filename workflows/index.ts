export { job } from './job';
export { webhookLane, webhookRedelivery } from './webhook-delivery';
export { meter } from './meter';
export { billingPeriod } from './billing-period';
