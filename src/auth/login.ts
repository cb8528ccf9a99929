import { createHmac, randomInt, timingSafeEqual } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { ApiConfig } from '../config';
import { AppError } from '../shared/errors';
import { newId } from '../shared/ids';
import type { TokenIssuer } from './jwt';
import type { Mailer } from './mailer';
import { appendAudit } from '../audit/log';
import { type User, findOrCreateUser } from './users';

export interface LoginDeps {
  db: Knex;
  mailer: Mailer;
  tokens: TokenIssuer;
  /** Keys the code hashes, so a leaked table cannot be brute-forced offline. */
  hashKey: string;
  auth: ApiConfig['auth'];
  log: Logger;
}

const invalidCode = () =>
  new AppError('auth.unauthenticated', 'The code is wrong, expired or already used; request a new one');

// Classes of pg_advisory_xact_lock(class, key): a request holds its address's lock, then its
// client's (always in that order, so two requests never wait on each other crosswise); a
// verification holds its client's verify lock.
const LOCK_REQUEST_EMAIL = 7301;
const LOCK_REQUEST_IP = 7302;
const LOCK_VERIFY_IP = 7303;

const lock = (trx: Knex.Transaction, lockClass: number, key: string) =>
  trx.raw('select pg_advisory_xact_lock(?, hashtext(?))', [lockClass, key]);

/** Which hourly limit, if any, a new code for `email` asked from `ip` would pass. */
async function spentLimit(
  trx: Knex.Transaction,
  email: string,
  ip: string,
  auth: ApiConfig['auth'],
): Promise<string | null> {
  const { rows } = await trx.raw<{ rows: Array<{ pair: number; ip: number; email: number }> }>(
    `select count(*) filter (where email = :email and client_ip = :ip)::int as pair,
            count(*) filter (where client_ip = :ip)::int as ip,
            count(*) filter (where email = :email)::int as email
       from otp_codes
      where created_at > now() - interval '1 hour' and (email = :email or client_ip = :ip)`,
    { email, ip },
  );
  const n = rows[0];
  if (n.pair >= auth.otpMaxPerHour) return 'per address and client';
  if (n.ip >= auth.otpMaxPerHourPerIp) return 'per client';
  if (n.email >= auth.otpMaxPerHourPerEmail) return 'per address';
  return null;
}

/** Seconds until `ip` may try a code again, or 0 while it is under the hourly cap of wrong codes. */
async function lockedOutFor(trx: Knex.Transaction, ip: string, cap: number): Promise<number> {
  // The cap-th newest failure in the window: once it ages out, the client is under the cap again.
  const row = await trx('otp_verify_failures')
    .where({ client_ip: ip })
    .where('created_at', '>', trx.raw("now() - interval '1 hour'"))
    .orderBy('created_at', 'desc')
    .offset(cap - 1)
    .first<{ wait: number } | undefined>(
      trx.raw("extract(epoch from created_at + interval '1 hour' - now())::float8 as wait"),
    );
  return row ? Math.max(1, Math.ceil(row.wait)) : 0;
}

async function recordFailure(trx: Knex.Transaction, ip: string): Promise<void> {
  await trx('otp_verify_failures').insert({ client_ip: ip });
  // Prune a few expired rows of anyone; SKIP LOCKED so concurrent prunes never wait on each other.
  await trx.raw(
    `delete from otp_verify_failures where id in (
       select id from otp_verify_failures where created_at < now() - interval '1 hour' limit 100 for update skip locked)`,
  );
}

/** Passwordless login: a 6-digit code by e-mail, exchanged once for a short-lived JWT. */
export function createLoginService({ db, mailer, tokens, hashKey, auth, log }: LoginDeps) {
  const hashCode = (email: string, code: string) => createHmac('sha256', hashKey).update(`${email}\n${code}`).digest();
  const normalize = (email: string) => email.trim().toLowerCase();

  return {
    /**
     * Always succeeds for a well-formed address, whether or not it has an account, a limit was
     * reached or the mail relay failed: the answer tells a caller nothing about the address.
     */
    async requestCode(rawEmail: string, clientIp: string): Promise<void> {
      const email = normalize(rawEmail);
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      // Counted and written under the locks, so concurrent requests cannot all see room under a
      // limit, nor each leave a code open.
      const refused = await db.transaction(async (trx) => {
        await lock(trx, LOCK_REQUEST_EMAIL, email);
        await lock(trx, LOCK_REQUEST_IP, clientIp);
        const limit = await spentLimit(trx, email, clientIp, auth);
        if (limit) return limit;
        // Only the newest code works: asking again retires the earlier ones.
        await trx('otp_codes').where({ email }).whereNull('closed_at').update({ closed_at: trx.fn.now() });
        await trx('otp_codes').insert({
          id: newId('otp'),
          email,
          client_ip: clientIp,
          code_hash: hashCode(email, code).toString('hex'),
          expires_at: trx.raw(`now() + make_interval(secs => ?)`, [auth.otpTtlSeconds]),
        });
        return null;
      });
      if (refused) {
        log.warn({ email, clientIp, limit: refused }, 'login code not sent: hourly limit reached');
        return;
      }
      await mailer.sendLoginCode(email, code, Math.round(auth.otpTtlSeconds / 60));
    },

    /** Past the hourly cap of wrong codes from `clientIp`, 429 before the code is looked at. */
    async verifyCode(
      rawEmail: string,
      code: string,
      clientIp: string,
      userAgent?: string,
    ): Promise<{ token: string; expiresAt: string; user: User }> {
      const email = normalize(rawEmail);
      const cap = auth.otpMaxFailedVerifyPerHourPerIp;
      const outcome = await db.transaction(async (trx) => {
        // One verification per client at a time, so concurrent guesses cannot all pass the count.
        await lock(trx, LOCK_VERIFY_IP, clientIp);
        const wait = await lockedOutFor(trx, clientIp, cap);
        if (wait)
          throw new AppError(
            'rate_limit.exceeded',
            `Too many wrong codes from this address: at most ${cap} an hour`,
            { limit: cap },
            wait,
          );
        const row = await trx('otp_codes')
          .where({ email })
          .whereNull('closed_at')
          .where('expires_at', '>', trx.fn.now())
          .orderBy('created_at', 'desc')
          .forUpdate()
          .first();
        if (!row) {
          await recordFailure(trx, clientIp);
          return null;
        }
        const given = hashCode(email, code);
        if (!timingSafeEqual(given, Buffer.from(row.code_hash, 'hex'))) {
          const tries = row.failed_tries + 1;
          await trx('otp_codes')
            .where({ id: row.id })
            .update({ failed_tries: tries, closed_at: tries >= auth.otpMaxTries ? trx.fn.now() : null });
          await recordFailure(trx, clientIp);
          return null;
        }
        await trx('otp_codes').where({ id: row.id }).update({ closed_at: trx.fn.now() });
        const found = await findOrCreateUser(trx, email);
        await appendAudit(trx, {
          workspaceId: found.user.workspaceId,
          actor: { type: 'user', id: found.user.id, email },
          action: 'auth.login',
          target: { type: 'user', id: found.user.id },
          origin: { ip: clientIp, userAgent },
          details: { firstLogin: found.created },
        });
        return found;
      });
      if (!outcome) throw invalidCode();
      if (outcome.created) log.info({ userId: outcome.user.id, workspaceId: outcome.user.workspaceId }, 'new user');
      const { token, expiresAt } = await tokens.issue({
        userId: outcome.user.id,
        workspaceId: outcome.user.workspaceId,
        email,
      });
      return { token, expiresAt, user: outcome.user };
    },
  };
}

export type LoginService = ReturnType<typeof createLoginService>;
