import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { createCredentialCache } from '../../src/auth/credential-cache';
import type { Principal } from '../../src/auth/principal';
import type { Notifier } from '../../src/db/notifier';

// A key past its time is served once more while it is read again off the request's path; past
// twice its time, or once a notification withdrew it, it is read before the answer.
describe('credential cache: keys read again in the background', () => {
  const TTL = 60_000;
  const principal = { workspaceId: 'ws_a', keyId: 'key_a', kind: 'user' } as unknown as Principal;
  let clock = 0;
  const sleep = async (ms: number) => {
    clock += ms;
    await new Promise((r) => setImmediate(r));
  };

  function cache() {
    const listeners = new Map<string, (payload: string) => void>();
    const notifier = {
      live: true,
      subscribe: (channel: string, fn: (payload: string) => void) => (listeners.set(channel, fn), () => undefined),
      onReset: () => () => undefined,
    } as unknown as Notifier;
    const c = createCredentialCache({
      db: {} as Knex,
      notifier,
      ttlMs: TTL,
      maxEntries: 100,
      stamp: () => undefined,
      now: () => clock,
    });
    const reads = { load: 0, reload: 0 };
    const load = async () => (reads.load++, principal);
    const reload = async () => (reads.reload++, principal);
    const notify = (payload: string) => listeners.get('compute_credentials')!(payload);
    return { c, reads, load, reload, notify };
  }

  it('serves a fresh key from memory without reading', async () => {
    const { c, reads, load, reload } = cache();
    await c.apiKey('k_1', load, reload);
    await c.apiKey('k_1', load, reload);
    assert.deepEqual(reads, { load: 1, reload: 0 });
  });

  it('past its time: answers from memory and reads it again once, in the background', async () => {
    const { c, reads, load, reload } = cache();
    await c.apiKey('k_1', load, reload);
    await sleep(TTL + 10);
    assert.equal(await c.apiKey('k_1', load, reload), principal);
    assert.equal(await c.apiKey('k_1', load, reload), principal);
    await sleep(0);
    assert.deepEqual(reads, { load: 1, reload: 1 }, 'one read again, none on the path');
    await c.apiKey('k_1', load, reload);
    assert.deepEqual(reads, { load: 1, reload: 1 }, 'fresh again');
  });

  it('past twice its time, or without a way to read it again, reads before the answer', async () => {
    const { c, reads, load, reload } = cache();
    await c.apiKey('k_1', load, reload);
    await sleep(2 * TTL + 10);
    await c.apiKey('k_1', load, reload);
    assert.deepEqual(reads, { load: 2, reload: 0 });
    await sleep(TTL + 10);
    await c.apiKey('k_1', load);
    assert.deepEqual(reads, { load: 3, reload: 0 });
  });

  it('a key a notification withdrew is read before the answer, however young', async () => {
    const { c, reads, load, reload, notify } = cache();
    await c.apiKey('k_1', load, reload);
    notify('key:key_a');
    await c.apiKey('k_1', load, reload);
    assert.deepEqual(reads, { load: 2, reload: 0 });
  });

  it('drops a key the background read finds revoked', async () => {
    const { c, reads, load } = cache();
    await c.apiKey('k_1', load, async () => (reads.reload++, null));
    await sleep(TTL + 10);
    await c.apiKey('k_1', load, async () => (reads.reload++, null));
    await sleep(0);
    await c.apiKey('k_1', load, async () => (reads.reload++, null));
    assert.deepEqual(reads, { load: 2, reload: 1 });
  });
});
