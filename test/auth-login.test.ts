import assert from 'node:assert/strict';
import { SignJWT, decodeProtectedHeader } from 'jose';
import { TEST_ENV, testEnv } from './support/env';
import { login, newEmail } from './support/auth';
import { post } from './support/http';

/** Always as a Bearer token, even for strings that do not look like a JWT. */
const bearer = (path: string, body: unknown, token: string) =>
  fetch(`${testEnv().url}/api${path}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  }).then(async (r) => ({ status: r.status, body: (await r.json()) as { code?: string; payload?: { job_id: string } } }));

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
    assert.doesNotMatch(stored.code_hash, new RegExp(testEnv().mailbox.codeFor(email)), 'the code is stored hashed');

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

  it('refuses a wrong code, then still takes the right one', async () => {
    const email = newEmail();
    await post('/auth/request-otp', { email });
    const code = testEnv().mailbox.codeFor(email);
    const wrong = await post('/auth/verify-otp', { email, code: code === '000000' ? '000001' : '000000' });
    assert.deepEqual([wrong.status, wrong.body.code], [401, 'auth.unauthenticated']);
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
    await testEnv().db('otp_codes').where({ email: email.toLowerCase() }).update({ expires_at: testEnv().db.raw("now() - interval '1 second'") });
    assert.equal((await post('/auth/verify-otp', { email, code: expired })).status, 401);

    await post('/auth/request-otp', { email });
    const older = testEnv().mailbox.codeFor(email);
    await post('/auth/request-otp', { email });
    const newer = testEnv().mailbox.codeFor(email);
    if (older !== newer) assert.equal((await post('/auth/verify-otp', { email, code: older })).status, 401, 'superseded');
    assert.equal((await post('/auth/verify-otp', { email, code: newer })).status, 200);
    assert.equal((await post('/auth/verify-otp', { email, code: newer })).status, 401, 'no replay');
  });

  it('refuses tokens that are unsigned, forged, expired, mis-addressed or of a removed member', async () => {
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
    const payload = { ...claims, sub: user.id, iss: 'compute-job-service', aud: 'compute-api', iat: 1, exp: 9_999_999_999 };
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
    assert.equal((await bearer('/compute/jobs/list', {}, await sign({}))).status, 200, 'the same claims, properly signed, pass');
    await testEnv().db('workspace_members').where({ user_id: user.id }).delete();
    assert.equal((await bearer('/compute/jobs/list', {}, token)).status, 401, 'removed from the workspace');
  });
});
