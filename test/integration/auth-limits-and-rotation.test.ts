// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { SignJWT, decodeProtectedHeader, jwtVerify } from 'jose';
import { childEnvironment } from '../../src/config';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { type Session, login, newEmail } from '../support/auth';
import { TEST_ENV, quietLog, testEnv } from '../support/env';
import { post, postFrom } from '../support/http';

// The docs' promises about login, tokens, start-up and request budgets (docs/guides/accounts-and-access.md,
// using-the-api.md, production-and-upgrades.md), each on the real stack.

const ROOT = path.resolve(__dirname, '../..');

/** An API of its own with `overrides`, in this process; stopped after the suite. */
function apiWith(overrides: Record<string, string>) {
  let api: ServiceProcess | undefined;
  before(async () => {
    api = await startServiceProcess({
      config: testEnv().configWith(overrides),
      log: quietLog,
      api: true,
      worker: false,
    });
  });
  after(() => api?.stop());
  return () => api!.url!;
}

describe('login codes per hour (OTP_MAX_PER_HOUR)', () => {
  const url = apiWith({ OTP_MAX_PER_HOUR: '2' });
  const client = '127.0.0.61';

  // That past the limit request-otp still answers 200 and mails nothing, per address and client,
  // is proven by auth-login's "lets another client get a code for an address whose allowance one
  // client spent"; this one proves that the allowance is an hour's.
  it('counts the codes of the last hour only: a code an hour old no longer counts', async () => {
    const email = newEmail();
    const mails = () => testEnv().mailbox.count(email);
    const ask = async () => {
      const reply = await postFrom(client, '/auth/request-otp', { email }, undefined, url());
      assert.deepEqual(
        [reply.status, reply.body],
        [200, { status: 'OK', payload: { sent: true } }],
        'always the same 200',
      );
    };
    for (let i = 0; i < 3; i++) await ask();
    assert.equal(mails(), 2, 'the third code of the hour was not mailed');

    const age = (minutes: number) =>
      testEnv()
        .db('otp_codes')
        .where({ email: email.toLowerCase(), client_ip: client })
        .update({ created_at: testEnv().db.raw(`now() - make_interval(mins => ?)`, [minutes]) });
    await age(59);
    await ask();
    assert.equal(mails(), 2, 'codes 59 minutes old still count');
    await age(61);
    await ask();
    assert.equal(mails(), 3, 'codes 61 minutes old no longer count');
    const verified = await postFrom(
      client,
      '/auth/verify-otp',
      { email, code: testEnv().mailbox.codeFor(email) },
      undefined,
      url(),
    );
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
  });
});

describe('JWT_PREVIOUS_SECRET', () => {
  const OLD = TEST_ENV.JWT_SECRET; // what the suite's own API signs with
  const NEW = 'rotated-secret-rotated-secret-0123456789ab';
  const UNRELATED = 'unrelated-secret-unrelated-secret-0123456789';
  const rotated = apiWith({ JWT_SECRET: NEW, JWT_PREVIOUS_SECRET: OLD });
  const key = (s: string) => new TextEncoder().encode(s);
  const list = (token: string, baseUrl: string) => post('/compute/jobs/list', {}, token, baseUrl);

  it('verifies tokens the previous secret signed, signs new ones with the current secret only, and refuses any other secret', async () => {
    const before = await login(); // signed by the suite's API, with OLD
    assert.equal((await list(before.token, rotated())).status, 200, 'a token of the previous secret still verifies');

    const email = newEmail();
    assert.equal((await post('/auth/request-otp', { email }, undefined, rotated())).status, 200);
    const verified = await post(
      '/auth/verify-otp',
      { email, code: testEnv().mailbox.codeFor(email) },
      undefined,
      rotated(),
    );
    assert.equal(verified.status, 200, JSON.stringify(verified.body));
    const after = verified.body.payload as Session;
    const verifyWith = (secret: string) =>
      jwtVerify(after.token, key(secret), {
        algorithms: ['HS256'],
        issuer: 'compute-job-service',
        audience: 'compute-api',
      });
    await assert.doesNotReject(verifyWith(NEW), 'signed with the current secret');
    await assert.rejects(verifyWith(OLD), 'not signed with the previous secret');
    const kidNew = decodeProtectedHeader(after.token).kid;
    const kidOld = decodeProtectedHeader(before.token).kid;
    assert.ok(
      kidNew && kidOld && kidNew !== kidOld,
      `the new token names the current secret (${kidNew}), not the previous (${kidOld})`,
    );
    assert.equal((await list(after.token, rotated())).status, 200);
    assert.equal(
      (await list(after.token, testEnv().url)).status,
      401,
      'an API that knows only the old secret refuses it',
    );

    const forge = (secret: string, kid: string) =>
      new SignJWT({ ws: before.user.workspaceId, email: before.user.email })
        .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
        .setSubject(before.user.id)
        .setIssuer('compute-job-service')
        .setAudience('compute-api')
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(key(secret));
    const cases: Record<string, string> = {
      'an unrelated secret under its own kid': await forge(UNRELATED, 'kunrelated000'),
      "an unrelated secret under the current secret's kid": await forge(UNRELATED, kidNew),
      "an unrelated secret under the previous secret's kid": await forge(UNRELATED, kidOld),
      "the current secret under the previous secret's kid": await forge(NEW, kidOld),
      'the current secret under an unknown kid': await forge(NEW, 'kunknown00000'),
    };
    for (const [what, token] of Object.entries(cases)) {
      const reply = await list(token, rotated());
      assert.deepEqual([reply.status, reply.body.code], [401, 'auth.unauthenticated'], what);
    }
    assert.equal(
      (await list(await forge(OLD, kidOld), rotated())).status,
      200,
      'the same claims, signed with the previous secret, pass',
    );
  });
});

describe('production start-up', () => {
  it('refuses to start the API without SMTP_URL, saying why', async function () {
    this.timeout(60_000);
    // JWT_SECRET is set, so only the missing relay can stop it (safe-defaults covers JWT_SECRET).
    // LOG_LEVEL info, so an API that does start says so ("api listening") and the test fails at once.
    const env = childEnvironment({ ...testEnv().vars, NODE_ENV: 'production', PORT: '0', LOG_LEVEL: 'info' });
    delete env.SMTP_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main/api.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    const started = new Promise<never>((_, reject) => {
      const onOutput = (c: Buffer) => {
        output += c.toString('utf8');
        if (/api listening/.test(output)) reject(new Error(`the API started without SMTP_URL: ${output}`));
      };
      child.stdout.on('data', onOutput);
      child.stderr.on('data', onOutput);
    });
    started.catch(() => undefined);
    try {
      const code = await Promise.race([exited, started]);
      assert.notEqual(code, 0, output);
      assert.match(output, /SMTP_URL is required in production/);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});

describe('request budgets per hour (RATE_LIMIT_PER_HOUR) and the RateLimit headers', () => {
  const hourly = apiWith({ RATE_LIMIT_PER_MINUTE: '1000', RATE_LIMIT_PER_HOUR: '5' });
  const bothSpent = apiWith({ RATE_LIMIT_PER_MINUTE: '3', RATE_LIMIT_PER_HOUR: '3' });
  const minuteFirst = apiWith({ RATE_LIMIT_PER_MINUTE: '2', RATE_LIMIT_PER_HOUR: '3' });
  const HEADERS = ['ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'];
  const headersOf = (reply: { headers: Headers }) => Object.fromEntries(HEADERS.map((h) => [h, reply.headers.get(h)]));
  /** Moves a budget window's start `seconds` back (the counts live in PostgreSQL); how many rows moved. */
  const ageWindow = (key: string, seconds: number) =>
    testEnv()
      .db('rate_limits')
      .where({ key })
      .update({ expire: testEnv().db.raw('expire - ?', [seconds * 1000]) });
  const carriesAll = (reply: { status: number; headers: Headers }, what: string) => {
    for (const h of HEADERS) assert.ok(reply.headers.get(h), `${what} (${reply.status}) carries ${h}`);
  };

  it('refuses the 6th request of an hour with 429, Retry-After and RateLimit-Reset of the hour window, on answers of every kind', async () => {
    const { token, user } = await login(); // on the suite's API: the login calls spend the address's budget, not the user's
    const call = (route: string, body: unknown) => post(route, body, token, hourly());
    const first = await call('/compute/jobs/list', {});
    // The hour window opened with that request; move its start 10 minutes back, as if they had passed.
    assert.equal(await ageWindow(`rl_hour:usr:${user.id}`, 600), 1);
    const started = Date.now();
    const replies = [
      first,
      await call('/compute/jobs/retrieve', { job_id: 'job_00000000000000000000000000' }),
      await call('/compute/jobs/submit', { type: 'COMMAND' }),
      await call('/compute/jobs/list', {}),
      await call('/compute/jobs/list', {}),
      await call('/compute/jobs/list', {}),
    ];
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 404, 400, 200, 200, 429],
    );
    replies.forEach((r, i) => carriesAll(r, `answer ${i + 1}`));
    const elapsed = (Date.now() - started) / 1000;
    replies.forEach((r, i) => {
      const h = headersOf(r);
      assert.equal(h['ratelimit-policy'], '1000;w=60, 5;w=3600', `answer ${i + 1}`);
      assert.equal(h['ratelimit-limit'], '5', `answer ${i + 1}: the hour window is the nearer to its end`);
      assert.equal(h['ratelimit-remaining'], String(Math.max(0, 4 - i)), `answer ${i + 1}`);
      // What is left of the hour window: not a minute, and not the window's length either.
      const left = i === 0 ? 3600 : 3000;
      const reset = Number(h['ratelimit-reset']);
      assert.ok(
        reset <= left && reset >= left - elapsed - 2,
        `answer ${i + 1}: RateLimit-Reset ${reset}, not about ${left}`,
      );
    });
    const refused = replies[5];
    assert.equal(refused.body.code, 'rate_limit.exceeded');
    assert.equal(
      refused.headers.get('retry-after'),
      refused.headers.get('ratelimit-reset'),
      'Retry-After is the hour window’s reset',
    );
    assert.ok(Number(refused.headers.get('retry-after')) > 60);
  });

  it('reports the minute window on a normal answer under the default budgets, and login calls carry the headers too', async () => {
    const { token, user } = await login();
    const opening = await post('/compute/jobs/list', {}, token);
    assert.equal(Number(opening.headers.get('ratelimit-reset')), 60, 'a fresh minute window');
    assert.equal(await ageWindow(`rl_min:usr:${user.id}`, 30), 1);
    const started = Date.now();
    const normal = await post('/compute/jobs/list', {}, token);
    assert.equal(normal.status, 200);
    carriesAll(normal, 'a normal answer');
    const h = headersOf(normal);
    assert.equal(h['ratelimit-policy'], '1000;w=60, 30000;w=3600');
    assert.equal(h['ratelimit-limit'], '1000');
    assert.equal(h['ratelimit-remaining'], '998');
    const reset = Number(h['ratelimit-reset']);
    const elapsed = (Date.now() - started) / 1000;
    assert.ok(
      Number.isInteger(reset) && reset <= 30 && reset >= 30 - elapsed - 2,
      `RateLimit-Reset ${reset}: what is left of the minute window`,
    );
    for (const [what, body] of [
      ['request-otp', { email: newEmail() }],
      ['a malformed request-otp', { email: 'nope' }],
    ] as const) {
      carriesAll(await post('/auth/request-otp', body), what);
    }
  });

  it('names the later reset when both windows are spent, so a client that waits Retry-After is let through', async () => {
    const { token } = await login();
    const replies = [];
    for (let i = 0; i < 5; i++) replies.push(await post('/compute/jobs/list', {}, token, bothSpent()));
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 429, 429],
    );
    // The minute's end would only bring another 429: the hour's 3 are spent too.
    for (const [i, r] of [
      [4, replies[3]],
      [5, replies[4]],
    ] as const) {
      const wait = Number(r.headers.get('retry-after'));
      assert.ok(wait > 60 && wait <= 3600, `request ${i}: Retry-After ${wait}, not the minute's end`);
      assert.equal(r.headers.get('ratelimit-limit'), '3', `request ${i}`);
      assert.equal(r.headers.get('ratelimit-reset'), String(wait));
    }
  });

  it("names the minute's reset when only the minute is spent: a refused request spends nothing of the hour", async () => {
    const { token, user } = await login();
    const replies = [];
    for (let i = 0; i < 4; i++) replies.push(await post('/compute/jobs/list', {}, token, minuteFirst()));
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 429, 429],
    );
    for (const r of replies.slice(2)) {
      assert.ok(
        Number(r.headers.get('retry-after')) <= 60,
        `Retry-After ${r.headers.get('retry-after')}: the minute's end lets the next one through`,
      );
      assert.equal(r.headers.get('ratelimit-limit'), '2');
    }
    const hour = await testEnv()
      .db('rate_limits')
      .where({ key: `rl_hour:usr:${user.id}` })
      .first('points');
    assert.equal(hour.points, 2, 'the hour window counts the two requests let through, not the refusals');
  });
});
