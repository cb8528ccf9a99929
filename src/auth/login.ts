import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import type { TokenIssuer } from './jwt';
import type { Mailer } from './mailer';
import { type User, findOrCreateUser } from './users';

export interface LoginDeps {
  db: Knex;
  mailer: Mailer;
  tokens: TokenIssuer;
  /** Keys the code hashes, so a leaked table cannot be brute-forced offline. */
  hashKey: string;
  auth: Config['auth'];
  log: Logger;
}

const invalidCode = () => new AppError('auth.unauthenticated', 'The code is wrong, expired or already used; request a new one');

/** Passwordless login: a 6-digit code by e-mail, exchanged once for a short-lived JWT. */
export function createLoginService({ db, mailer, tokens, hashKey, auth, log }: LoginDeps) {
  const hashCode = (email: string, code: string) => createHmac('sha256', hashKey).update(`${email}\n${code}`).digest();
  const normalize = (email: string) => email.trim().toLowerCase();

  return {
    /** Always succeeds for a well-formed address, whether or not it has an account. */
    async requestCode(rawEmail: string): Promise<void> {
      const email = normalize(rawEmail);
      const recent = await db('otp_codes')
        .where({ email })
        .where('created_at', '>', db.raw("now() - interval '1 hour'"))
        .count<{ n: string }[]>('* as n');
      if (Number(recent[0].n) >= auth.otpMaxPerHour) {
        log.warn({ email }, 'login code not sent: hourly limit for this address reached');
        return;
      }
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      await db.transaction(async (trx) => {
        // Only the newest code works: asking again retires the earlier ones.
        await trx('otp_codes').where({ email }).whereNull('closed_at').update({ closed_at: trx.fn.now() });
        await trx('otp_codes').insert({
          id: newId('otp'),
          email,
          code_hash: hashCode(email, code).toString('hex'),
          expires_at: trx.raw(`now() + make_interval(secs => ?)`, [auth.otpTtlSeconds]),
        });
      });
      await mailer.sendLoginCode(email, code, Math.round(auth.otpTtlSeconds / 60));
    },

    async verifyCode(rawEmail: string, code: string): Promise<{ token: string; expiresAt: string; user: User }> {
      const email = normalize(rawEmail);
      const outcome = await db.transaction(async (trx) => {
        const row = await trx('otp_codes')
          .where({ email })
          .whereNull('closed_at')
          .where('expires_at', '>', trx.fn.now())
          .orderBy('created_at', 'desc')
          .forUpdate()
          .first();
        if (!row) return null;
        const given = hashCode(email, code);
        if (!timingSafeEqual(given, Buffer.from(row.code_hash, 'hex'))) {
          const tries = row.failed_tries + 1;
          await trx('otp_codes')
            .where({ id: row.id })
            .update({ failed_tries: tries, closed_at: tries >= auth.otpMaxTries ? trx.fn.now() : null });
          return null;
        }
        await trx('otp_codes').where({ id: row.id }).update({ closed_at: trx.fn.now() });
        return findOrCreateUser(trx, email);
      });
      if (!outcome) throw invalidCode();
      if (outcome.created) log.info({ userId: outcome.user.id, workspaceId: outcome.user.workspaceId }, 'new user');
      const { token, expiresAt } = await tokens.issue({ userId: outcome.user.id, workspaceId: outcome.user.workspaceId, email });
      return { token, expiresAt, user: outcome.user };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
