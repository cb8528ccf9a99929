// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createApiKey } from '../../src/auth/api-keys';
import { keyUseStamps } from '../../src/auth/key-use-stamps';
import { apisPerTest } from '../support/api-process';
import { testEnv } from '../support/env';
import { newWorkspace, post, sleep } from '../support/http';

// What a fleet's keys cost the database once they are known: keys served from the credential
// cache are stamped as used in batches (src/auth/key-use-stamps.ts), one statement per window for
// every key that came due, each key at most once a minute; and keys whose cache entry ran out are
// read again together, one statement for those renewed in the same window (src/auth/service.ts).

describe('cached keys', () => {
  const apiWith = apisPerTest();

  it('stamps each key due once, in one statement per window, and leaves a fresh stamp alone', async () => {
    const db = testEnv().db;
    const { workspaceId } = await newWorkspace('stamps');
    const make = async (name: string) => (await createApiKey(db, { workspaceId, name, kind: 'user' })).id;
    const [stale, never, fresh, late] = [
      await make('stale'),
      await make('never'),
      await make('fresh'),
      await make('late'),
    ];
    await db('api_keys').whereIn('id', [stale, never, fresh, late]).update({ last_used_at: null });
    await db('api_keys')
      .where({ id: stale })
      .update({ last_used_at: db.raw("now() - interval '2 minutes'") });
    await db('api_keys')
      .where({ id: fresh })
      .update({ last_used_at: db.raw("now() - interval '20 seconds'") });
    const stampOf = async (id: string) =>
      ((await db('api_keys').where({ id }).first('last_used_at')) as { last_used_at: Date | null }).last_used_at;
    const freshBefore = await stampOf(fresh);

    const stamps = keyUseStamps(db);
    const started = Date.now();
    for (const id of [stale, never, fresh, stale]) stamps.stamp(id);
    assert.equal(await stampOf(never), null, 'nothing written before its window closes');
    const statements: string[] = [];
    const count = (q: { sql: string }) => {
      if (q.sql.includes('UPDATE api_keys SET last_used_at')) statements.push(q.sql);
    };
    db.on('query', count);
    await stamps.flush().finally(() => db.off('query', count));
    assert.equal(statements.length, 1, 'one statement for the window');
    for (const id of [stale, never]) {
      const at = await stampOf(id);
      assert.ok(at && at.getTime() >= started - 5000, `${id} stamped now: ${at?.toISOString()}`);
    }
    assert.deepEqual(await stampOf(fresh), freshBefore, 'a stamp younger than a minute is kept');

    // Without a flush, the window closes by itself.
    stamps.stamp(late);
    await sleep(1500);
    assert.ok(await stampOf(late), 'stamped when its window closed');
  });

  it('renews the keys whose entries ran out in one statement, each resolved as before', async () => {
    const api = await apiWith({ CREDENTIAL_CACHE_TTL_MS: '300' });
    const db = testEnv().db;
    const { workspaceId, key } = await newWorkspace('renewals');
    const more = await Promise.all(
      ['a', 'b'].map(async (name) => (await createApiKey(db, { workspaceId, name, kind: 'user' })).key),
    );
    const keys = [key, ...more];
    const list = (k: string) => post('/compute/jobs/list', {}, k, api.url);
    for (const k of keys) assert.equal((await list(k)).status, 200);
    await sleep(500);

    const lookups: string[] = [];
    const count = (q: { sql: string }) => {
      if (/from "api_keys" as "k"/.test(q.sql)) lookups.push(q.sql);
    };
    api.db.on('query', count);
    const replies = await Promise.all([...keys, 'ck_nonesuch_secret'].map(list)).finally(() =>
      api.db.off('query', count),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 401],
    );
    const renewals = lookups.filter((q) => /"k"\."prefix" in \(\$\d+, \$\d+, \$\d+\)/.test(q));
    assert.equal(renewals.length, 1, `the three renewals in one statement: ${lookups.join(' | ')}`);
    assert.equal(lookups.length, 2, 'and the unknown key read on its own');
  });
});
