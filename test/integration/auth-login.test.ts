// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { request } from 'node:http';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { createTokenIssuer } from '../../src/auth/jwt';
import { createLoginService } from '../../src/auth/login';
import { createMailer } from '../../src/auth/mailer';
import type { ServiceConfig } from '../../src/config';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { freePort } from '../../src/stack/ports';
import { TEST_ENV, quietLog, testEnv } from '../support/env';
import { login, newEmail } from '../support/auth';
import { post } from '../support/http';
import { captureLog } from '../support/log-capture';

/** Always as a Bearer token, even for strings that do not look like a JWT. */
const bearer = (path: string, body: unknown, token: string) =>
  fetch(`${testEnv().url}/api${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  }).then(async (r) => ({
    status: r.status,
    body: (await r.json()) as { code?: string; payload?: { job_id: string } },
  }));

describe('login by e-mailed code', () => {
  it('mails a code, exchanges it for a JWT, and makes the user and an owned workspace on first login only', async () => {
    const email = newEmail();
    const first = await login(email);
    assert.match(first.user.id, /^usr_/);
    assert.equal(first.user.email, email.toLowerCase());
    assert.match(first.user.workspaceId, /^ws_/);
    const ttl = Date.parse(first.expiresAt) - Date.now();
    assert.ok(ttl > 3500_000 && ttl <= 3600_000, 'an hour');
    const member = await testEnv().db('workspace_members').where({ user_id: first.user.id }).first();
    assert.deepEqual([member.workspace_id, member.role], [first.user.workspaceId, 'owner']);
    const stored = await testEnv().db('otp_codes').where({ email: email.toLowerCase() }).first('code_hash');
    const code = testEnv().mailbox.codeFor(email);
    assert.doesNotMatch(stored.code_hash, new RegExp(code), 'the code is stored hashed');
    // Keyed: a plain hash of a 6-digit code would fall to a million guesses offline.
    const plain = [code, `${email.toLowerCase()}\n${code}`].map((t) => createHash('sha256').update(t).digest('hex'));
    assert.ok(!plain.includes(stored.code_hash), 'an HMAC, not a plain SHA-256');
    const keyed = createHmac('sha256', `otp:${testEnv().config.auth.jwtSecret}`)
      .update(`${email.toLowerCase()}\n${code}`)
      .digest('hex');
    assert.equal(stored.code_hash, keyed, 'an HMAC under the server key');

    const submitted = await bearer('/compute/jobs/submit', { type: 'COMMAND', command: 'echo jwt' }, first.token);
    assert.equal(submitted.status, 200);
    const again = await login(email.toUpperCase());
    assert.deepEqual([again.user.id, again.user.workspaceId], [first.user.id, first.user.workspaceId]);
    const seen = await bearer('/compute/jobs/retrieve', { job_id: submitted.body.payload!.job_id }, again.token);
    assert.equal(seen.status, 200);
  });

  it('answers request-otp the same for any address, and 400 only for a malformed one', async () => {
    const reply = await post('/auth/request-otp', { email: newEmail() });
    assert.deepEqual([reply.status, reply.body], [200, { status: 'OK', payload: { sent: true } }]);
    const bad = await post('/auth/request-otp', { email: 'not-an-address' });
    assert.deepEqual([bad.status, bad.body.code], [400, 'request.invalid']);
  });

  it('refuses wrong codes, and after four of them still takes the right one', async () => {
    const email = newEmail();
    await post('/auth/request-otp', { email });
    const code = testEnv().mailbox.codeFor(email);
    for (let i = 0; i < 4; i++) {
      const wrong = await post('/auth/verify-otp', {
        email,
        code: String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0'),
      });
      assert.deepEqual([wrong.status, wrong.body.code], [401, 'auth.unauthenticated']);
    }
    assert.equal((await post('/auth/verify-otp', { email, code })).status, 200);
  });

  it('burns a code after 5 wrong tries', async () => {
    const email = newEmail();
    await post('/auth/request-otp', { email });
    const code = testEnv().mailbox.codeFor(email);
    const wrong = code === '123456' ? '654321' : '123456';
    for (let i = 0; i < 5; i++) assert.equal((await post('/auth/verify-otp', { email, code: wrong })).status, 401);
    assert.equal((await post('/auth/verify-otp', { email, code })).status, 401, 'the right code no longer works');
  });

  it('refuses an expired code, a used one, and one replaced by a newer code', async () => {
    const email = newEmail();
    await post('/auth/request-otp', { email });
    const expired = testEnv().mailbox.codeFor(email);
    await testEnv()
      .db('otp_codes')
      .where({ email: email.toLowerCase() })
      .update({ expires_at: testEnv().db.raw("now() - interval '1 second'") });
    assert.equal((await post('/auth/verify-otp', { email, code: expired })).status, 401);

    await post('/auth/request-otp', { email });
    const older = testEnv().mailbox.codeFor(email);
    await post('/auth/request-otp', { email });
    const newer = testEnv().mailbox.codeFor(email);
    if (older !== newer)
      assert.equal((await post('/auth/verify-otp', { email, code: older })).status, 401, 'superseded');
    assert.equal((await post('/auth/verify-otp', { email, code: newer })).status, 200);
    assert.equal((await post('/auth/verify-otp', { email, code: newer })).status, 401, 'no replay');
  });

  it('refuses tokens that are unsigned, forged, expired or mis-addressed; a removed member acts nowhere they left', async () => {
    const { token, user } = await login(newEmail());
    const { kid } = decodeProtectedHeader(token);
    const secret = new TextEncoder().encode(TEST_ENV.JWT_SECRET);
    const claims = { ws: user.workspaceId, email: user.email };
    const sign = (opts: { key?: Uint8Array; aud?: string; iss?: string; exp?: number; kid?: string }) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: opts.kid ?? kid })
        .setSubject(user.id)
        .setIssuer(opts.iss ?? 'compute-job-service')
        .setAudience(opts.aud ?? 'compute-api')
        .setIssuedAt()
        .setExpirationTime(opts.exp ?? Math.floor(Date.now() / 1000) + 600)
        .sign(opts.key ?? secret);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const payload = {
      ...claims,
      sub: user.id,
      iss: 'compute-job-service',
      aud: 'compute-api',
      iat: 1,
      exp: 9_999_999_999,
    };
    const cases: Record<string, string> = {
      'alg none': `${b64({ alg: 'none', kid })}.${b64(payload)}.`,
      'wrong key': await sign({ key: new TextEncoder().encode('another-secret-another-secret-0123456789') }),
      expired: await sign({ exp: Math.floor(Date.now() / 1000) - 10 }),
      'wrong audience': await sign({ aud: 'someone-else' }),
      'wrong issuer': await sign({ iss: 'evil' }),
      'unknown kid': await sign({ kid: 'k000000000000' }),
      garbage: 'not.a.jwt',
    };
    for (const [name, bad] of Object.entries(cases)) {
      const reply = await bearer('/compute/jobs/list', {}, bad);
      assert.deepEqual([reply.status, reply.body.code], [401, 'auth.unauthenticated'], name);
    }
    assert.equal(
      (await bearer('/compute/jobs/list', {}, await sign({}))).status,
      200,
      'the same claims, properly signed, pass',
    );
    await testEnv().db('workspace_members').where({ user_id: user.id }).delete();
    // Heard through the listener (an operator's DELETE notifies like the API's own changes); the
    // request must not beat the notification to this instance, as on a loaded machine it can.
    await testEnv().service.services!.credentials.settle();
    // The session still names its user; the workspace it left is not found for it (member-removal).
    const removed = await bearer('/compute/jobs/list', {}, token);
    assert.deepEqual([removed.status, removed.body.code], [404, 'resource.not_found'], 'removed from the workspace');
  });
});

/** A login service over the suite's database with its own settings, mailing to `smtpUrl`. */
function loginServiceWith(
  overrides: Record<string, string>,
  opts: { smtpUrl?: string; log?: ReturnType<typeof captureLog>['log'] } = {},
) {
  const config: ServiceConfig = testEnv().configWith(overrides);
  const log = opts.log ?? quietLog;
  const mailer = createMailer({
    smtpUrl: opts.smtpUrl ?? testEnv().mailbox.url,
    from: config.mail.from,
    logCodes: false,
    log,
  });
  const tokens = createTokenIssuer({
    secret: TEST_ENV.JWT_SECRET,
    issuer: config.auth.jwtIssuer,
    audience: config.auth.jwtAudience,
    ttlSeconds: config.auth.jwtTtlSeconds,
  });
  return createLoginService({
    db: testEnv().db,
    mailer,
    tokens,
    hashKey: `otp:${TEST_ENV.JWT_SECRET}`,
    auth: config.auth,
    log,
  });
}

interface FromReply {
  status: number;
  retryAfter?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** POST from a chosen loopback source address: Linux routes all of 127/8 to loopback. */
function postFrom(localAddress: string, baseUrl: string, path: string, body: unknown): Promise<FromReply> {
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${baseUrl}/api${path}`,
      {
        method: 'POST',
        localAddress,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const retryAfter = res.headers['retry-after'];
          resolve({ status: res.statusCode!, retryAfter, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('login limits', () => {
  // An API of our own with low limits; the suite's API keeps its generous ones.
  let api: ServiceProcess;
  before(async () => {
    const config = testEnv().configWith({
      OTP_MAX_PER_HOUR: '2',
      OTP_MAX_PER_HOUR_PER_IP: '4',
      OTP_MAX_PER_HOUR_PER_EMAIL: '3',
      OTP_MAX_FAILED_VERIFY_PER_HOUR_PER_IP: '3',
    });
    api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
  });
  after(() => api?.stop());

  it('keeps concurrent requests for one address under its hourly limit, with one open code', async () => {
    const email = newEmail().toLowerCase();
    const logins = loginServiceWith({ OTP_MAX_PER_HOUR: '5' });
    await Promise.all(Array.from({ length: 12 }, () => logins.requestCode(email, '127.0.0.30')));
    const rows = await testEnv()
      .db('otp_codes')
      .where({ email })
      .where('created_at', '>', testEnv().db.raw("now() - interval '1 hour'"))
      .select('closed_at', 'client_ip');
    assert.equal(rows.length, 5, 'exactly the hourly limit');
    assert.equal(rows.filter((r) => r.closed_at === null).length, 1, 'exactly one open code');
    assert.ok(
      rows.every((r) => r.client_ip === '127.0.0.30'),
      'each code remembers its client address',
    );
    assert.equal(testEnv().mailbox.count(email), 5);
  });

  it("lets another client get a code for an address whose allowance one client spent, and caps one client's addresses", async () => {
    const victim = newEmail();
    for (let i = 0; i < 3; i++) {
      const reply = await postFrom('127.0.0.2', api.url!, '/auth/request-otp', { email: victim });
      assert.deepEqual([reply.status, reply.body], [200, { status: 'OK', payload: { sent: true } }], 'always 200');
    }
    assert.equal(testEnv().mailbox.count(victim), 2, 'client A spent its allowance for this address');

    assert.equal((await postFrom('127.0.0.3', api.url!, '/auth/request-otp', { email: victim })).status, 200);
    assert.equal(testEnv().mailbox.count(victim), 3, 'client B still got a code');
    const verified = await postFrom('127.0.0.3', api.url!, '/auth/verify-otp', {
      email: victim,
      code: testEnv().mailbox.codeFor(victim),
    });
    assert.equal(verified.status, 200, JSON.stringify(verified.body));

    const addresses = Array.from({ length: 6 }, () => newEmail());
    for (const email of addresses)
      assert.equal((await postFrom('127.0.0.4', api.url!, '/auth/request-otp', { email })).status, 200);
    assert.deepEqual(
      addresses.map((email) => testEnv().mailbox.count(email)),
      [1, 1, 1, 1, 0, 0],
      'one client gets codes for at most OTP_MAX_PER_HOUR_PER_IP addresses an hour',
    );
  });

  it('bounds the codes mailed to one address from many clients', async () => {
    const email = newEmail();
    for (const ip of ['127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8', '127.0.0.9']) {
      assert.equal((await postFrom(ip, api.url!, '/auth/request-otp', { email })).status, 200);
    }
    assert.equal(testEnv().mailbox.count(email), 3, 'OTP_MAX_PER_HOUR_PER_EMAIL');
  });

  it('answers 429 with Retry-After to a client past its wrong codes, while another client still logs in', async () => {
    const email = newEmail();
    assert.equal((await postFrom('127.0.0.20', api.url!, '/auth/request-otp', { email })).status, 200);
    const code = testEnv().mailbox.codeFor(email);
    const wrong = code === '000000' ? '000001' : '000000';
    const guesses = [
      { email, code: wrong },
      { email, code: wrong },
      { email: newEmail(), code: wrong }, // an address with no code counts as well
    ];
    for (const guess of guesses) {
      const reply = await postFrom('127.0.0.21', api.url!, '/auth/verify-otp', guess);
      assert.deepEqual([reply.status, reply.body.code], [401, 'auth.unauthenticated']);
    }
    const refused = await postFrom('127.0.0.21', api.url!, '/auth/verify-otp', { email, code: wrong });
    assert.deepEqual([refused.status, refused.body.code], [429, 'rate_limit.exceeded']);
    const retryAfter = Number(refused.retryAfter);
    assert.ok(
      Number.isInteger(retryAfter) && retryAfter > 3500 && retryAfter <= 3600,
      `Retry-After ${refused.retryAfter}`,
    );
    const rightButLate = await postFrom('127.0.0.21', api.url!, '/auth/verify-otp', { email, code });
    assert.equal(rightButLate.status, 429, 'refused before the code is checked');

    const other = await postFrom('127.0.0.22', api.url!, '/auth/verify-otp', { email, code });
    assert.equal(other.status, 200, JSON.stringify(other.body));
    assert.equal(other.body.payload.user.email, email.toLowerCase());
  });

  it('answers a code request alike when the mail relay refuses, and logs the failure', async () => {
    const captured = captureLog();
    const closed = `smtp://127.0.0.1:${await freePort()}`;
    const logins = loginServiceWith({}, { smtpUrl: closed, log: captured.log });
    const email = newEmail().toLowerCase();
    await logins.requestCode(email, '127.0.0.40');
    const warn = captured.lines().find((l) => l.msg === 'sending a login code failed');
    assert.ok(warn, captured.text());
    assert.equal(warn.level, 40);
    assert.equal(warn.email, email);
    assert.match(String(warn.err), /ECONNREFUSED/);
    const open = await testEnv().db('otp_codes').where({ email }).whereNull('closed_at');
    assert.equal(open.length, 1, 'the code was made; only its mail failed');
  });
});
