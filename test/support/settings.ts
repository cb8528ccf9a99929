/**
 * Everything production requires of an API and a worker (src/config/production.ts), so a test of
 * one production rule meets that rule alone. NODE_ENV is left out: unset, it reads as production.
 */
export const PRODUCTION_SECRETS = {
  JWT_SECRET: 'production-secret-production-secret-0123456789',
  SMTP_URL: 'smtp://127.0.0.1:25',
  WEBHOOK_SECRET_KEYS: Buffer.alloc(32, 1).toString('base64'),
  TEMPORAL_CODEC_KEYS: Buffer.alloc(32, 2).toString('base64'),
};

