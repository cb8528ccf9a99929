import assert from 'node:assert/strict';
import { apisPerTest } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { post } from '../support/http';
import { v0 } from '../support/v0';

// Sign-out ends the session, not only the cookie: its token is refused on every instance before
// the answer, as a revoked key is (src/auth/credential-cache.ts), though the token has not expired.

describe('sign-out', () => {
  const apiWith = apisPerTest();

  it('ends the session on every instance before it answers, on both surfaces; the person’s other sessions go on', async function () {
    this.timeout(60_000);
    const [one, two] = [await apiWith(), await apiWith()];
    const s = await login();
    const other = await login(s.user.email);
    const works = async (token: string, url: string) => [
      (await post('/compute/jobs/list', {}, token, url)).status,
      (await v0('GET', '/session', { token, baseUrl: url })).status,
    ];
    // Each instance has the session in memory.
    for (const api of [one, two]) assert.deepEqual(await works(s.token, api.url!), [200, 200]);

    const out = await fetch(`${one.url}/api/auth/sign-out`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Compute-CSRF': '1', Authorization: `Bearer ${s.token}` },
      body: '{}',
    });
    assert.equal(out.status, 200);
    for (const url of [one.url!, two.url!, testEnv().url])
      assert.deepEqual(await works(s.token, url), [401, 401], `refused at ${url}`);
    // An instance that never held it reads the revocation from the database.
    const three = await apiWith();
    assert.deepEqual(await works(s.token, three.url!), [401, 401]);
    assert.deepEqual(await works(other.token, two.url!), [200, 200], 'another session of the same person goes on');

    const { jti, exp } = JSON.parse(Buffer.from(s.token.split('.')[1]!, 'base64url').toString()) as {
      jti: string;
      exp: number;
    };
    const row = await testEnv().db('revoked_sessions').where({ jti }).first('expires_at');
    assert.equal(new Date(row.expires_at).getTime(), exp * 1000, 'kept until the token would have expired');
  });
});
