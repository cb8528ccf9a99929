import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors';

export interface Mailer {
  sendLoginCode(email: string, code: string, ttlMinutes: number): Promise<void>;
}

/**
 * Login codes go out by SMTP when SMTP_URL is set. Outside production the code is also logged,
 * so a laptop without a mail server can log in; production never logs it.
 */
export function createMailer(opts: { smtpUrl?: string; from: string; logCodes: boolean; log: Logger; retryAfterSeconds: number }): Mailer {
  if (!opts.smtpUrl && !opts.logCodes) throw new Error('SMTP_URL is required in production: login codes are sent by e-mail');
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
        opts.log.warn({ err: String(err) }, 'sending a login code failed');
        throw new AppError('dependency.unavailable', 'The mail service is unavailable', undefined, opts.retryAfterSeconds);
      }
    },
  };
}
