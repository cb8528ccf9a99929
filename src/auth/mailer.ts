import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';

export interface Mailer {
  /** Never rejects: a relay that fails is logged, so request-otp answers alike whatever happened. */
  sendLoginCode(email: string, code: string, ttlMinutes: number): Promise<void>;
}

/** The mailer of a service process: codes are logged outside production only. */
export function mailerFor(config: Pick<ApiConfig, 'env' | 'mail'>, log: Logger): Mailer {
  return createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    logCodes: config.env !== 'production',
    log,
  });
}

/**
 * Login codes go out by SMTP when SMTP_URL is set. Outside production the code is also logged,
 * so a laptop without a mail server can log in; production never logs it.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; logCodes: boolean; log: Logger }): Mailer {
  // Production never gets here without SMTP_URL (src/config/production.ts); codes must reach someone.
  if (!opts.smtpUrl && !opts.logCodes)
    throw new Error('a mailer that logs no code needs SMTP_URL: login codes would reach no one');
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : undefined;
  return {
    async sendLoginCode(email, code, ttlMinutes) {
      if (opts.logCodes) opts.log.info({ email, code }, 'login code (logged because NODE_ENV is not production)');
      if (!transport) return;
      try {
        await transport.sendMail({
          from: opts.from,
          to: email,
          subject: `Your login code: ${code}`,
          text: `Your login code is ${code}. It expires in ${ttlMinutes} minutes and works once.\n\nIf you did not ask for it, ignore this e-mail.\n`,
        });
      } catch (err) {
        // request-otp answers 200 whatever happened (a 503 would tell a caller no limit was hit);
        // the user asks again.
        opts.log.warn({ email, err: String(err) }, 'sending a login code failed');
      }
    },
  };
}
