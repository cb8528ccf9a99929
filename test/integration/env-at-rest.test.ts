import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { keyIdOf } from '../../src/crypto/aead';
import { createDataKeys } from '../../src/crypto/data-keys';
import { openEnv, sealStoredEnvs } from '../../src/jobs/env-at-rest';
import { startServiceProcess } from '../../src/runtime/service-process';
import { agentPool, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { suiteDataKeys } from '../support/data-keys';
import { quietLog, testEnv } from '../support/env';
import { ok, post } from '../support/http';
import { captureLog } from '../support/log-capture';
import { v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';

// A job's env holds secrets: its row keeps it sealed with the workspace's data key, records show
// its names only, and the agent that runs it still gets the values. A rotation of the operator key
// re-wraps the data keys and jobs sealed before it still run.

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** Every row of every table in the database that holds `marker` anywhere, as text. */
async function rowsHolding(marker: string): Promise<string[]> {
  const db = testEnv().db;
  const tables: string[] = await db('information_schema.tables')
    .where({ table_schema: 'public', table_type: 'BASE TABLE' })
    .pluck('table_name');
  const found: string[] = [];
  for (const table of tables) {
    const [{ n }] = (
      await db.raw(`SELECT count(*)::int AS n FROM ?? AS t WHERE t::text LIKE ?`, [table, `%${marker}%`])
    ).rows;
    if (n > 0) found.push(`${table}: ${n}`);
  }
  assert.ok(tables.length > 20, `searched every table (${tables.length})`);
  return found;
}

describe('job env at rest', function () {
  this.timeout(120_000);
  const agents = agentPool();

  it('is sealed in PostgreSQL and in no log line, shown by name only, and reaches the agent that runs the job', async () => {
    const captured = captureLog('debug');
    const api = await startServiceProcess({
      config: testEnv().configWith({ LOG_LEVEL: 'debug' }),
      log: captured.log,
      api: true,
      worker: false,
    });
    const receiver = await new WebhookReceiver().start();
    try {
      const owner = await login();
      await v0ok('POST', '/webhooks', { token: owner.token, body: { url: receiver.url, events: ['job.terminal'] } });
      const marker = `envsecret-${randomBytes(8).toString('hex')}`;
      const key = (await ok('/compute/api-keys/create', { name: 'a', kind: 'agent' }, owner.token, api.url))
        .key as string;
      await agents({ key, apiUrl: api.url, env: { LOG_LEVEL: 'debug' } });
      const job = await v0ok('POST', '/jobs', {
        token: owner.token,
        baseUrl: api.url,
        body: { type: 'COMMAND', command: 'printf %s "$SECRET" | sha256sum', env: { SECRET: marker, PLAIN: 'x' } },
      });
      await waitFor(
        'the job done',
        async () => (await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 })).state === 'SUCCEEDED',
        30_000,
      );
      const { lines } = await v0ok('GET', `/jobs/${job.id}/logs?afterSeq=0`, { token: owner.token, status: 200 });
      assert.match(lines[0].line, new RegExp(`^${sha256(marker)}`), 'the agent got the value');

      const record = await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 });
      assert.deepEqual(record.env, { SECRET: '[redacted]', PLAIN: '[redacted]' }, 'names only');
      assert.deepEqual(
        (await ok('/compute/jobs/retrieve', { job_id: job.id }, owner.token)).env,
        record.env,
        'on Surface A too',
      );
      assert.deepEqual(await rowsHolding(marker), [], 'in no row of any table');
      const stored = await testEnv().db('jobs').where({ id: job.id }).first('env');
      assert.deepEqual(stored.env.$sealed.names, ['SECRET', 'PLAIN']);
      assert.ok(captured.lines().length > 3, `the API logged its requests at debug (${captured.lines().length} lines)`);
      assert.ok(!captured.text().includes(marker), 'and never its env');
      await receiver.waitFor(
        (all) => all.some((r) => r.event?.data?.job?.id === job.id),
        20_000,
        'the job.terminal event',
      );
      const [event] = receiver.of(job.id);
      assert.deepEqual(
        event.event.data.job.env,
        { SECRET: '[redacted]', PLAIN: '[redacted]' },
        'webhooks carry the names only',
      );
      assert.ok(!event.body.includes(marker));

      // Sealed for that job only: copied to another job's row, it does not open.
      const other = await v0ok('POST', '/jobs', {
        token: owner.token,
        body: { type: 'COMMAND', command: 'true', selector: { nobody: 'here' } },
      });
      await assert.rejects(
        openEnv(await suiteDataKeys(), owner.user.workspaceId, other.id, stored.env),
        /does not open/,
      );
      await v0ok('POST', `/jobs/${other.id}:cancel`, { token: owner.token, status: 200 });
    } finally {
      await receiver.stop();
      await api.stop();
    }
  });

  it('seals env an older version left clear, and opens it the same', async () => {
    const owner = await login();
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      body: { type: 'COMMAND', command: 'true', selector: { nobody: 'here' } },
    });
    await testEnv()
      .db('jobs')
      .where({ id: job.id })
      .update({ env: JSON.stringify({ LEGACY: 'clear-value' }) });
    const keys = await suiteDataKeys();
    assert.ok((await sealStoredEnvs(testEnv().db, keys)) >= 1);
    const { env } = await testEnv().db('jobs').where({ id: job.id }).first('env');
    assert.deepEqual(env.$sealed.names, ['LEGACY']);
    assert.deepEqual(await openEnv(keys, owner.user.workspaceId, job.id, env), { LEGACY: 'clear-value' });
    assert.equal(await sealStoredEnvs(testEnv().db, keys), 0, 'nothing left clear');
    await v0ok('POST', `/jobs/${job.id}:cancel`, { token: owner.token, status: 200 });
  });

  it('re-wraps the data keys on a rotation of TEMPORAL_CODEC_KEYS; a job sealed under key 1 runs under keys [2, 1]', async () => {
    const db = testEnv().db;
    const [key1, key2] = testEnv().config.temporal.codecKeys!;
    const owner = await login();
    const job = await v0ok('POST', '/jobs', {
      token: owner.token,
      body: {
        type: 'COMMAND',
        command: 'echo "got $TOKEN"',
        env: { TOKEN: 'rotated-ok' },
        selector: { rotation: 'yes' },
      },
    });
    const before = await db('workspace_data_keys').where({ workspace_id: owner.user.workspaceId }).first();
    assert.equal(before.wrapped_by, keyIdOf(key1));
    const rotatedAt = new Date();
    const rotated = await startServiceProcess({
      config: testEnv().configWith({ TEMPORAL_CODEC_KEYS: `${key2.toString('base64')},${key1.toString('base64')}` }),
      log: quietLog,
      api: true,
      worker: false,
    });
    try {
      const after = await db('workspace_data_keys').where({ workspace_id: owner.user.workspaceId }).first();
      // Re-wrapped with the new first key at start. A suite process that starts since (the other
      // lane's: its first key is still key 1) wraps it back with key 1 at its own start; both are
      // re-wraps, which a row never wrapped since its creation would not show.
      const rewrapped =
        after.wrapped_by === keyIdOf(key2) || (after.wrapped_by === keyIdOf(key1) && after.rewrapped_at >= rotatedAt);
      assert.ok(rewrapped, `re-wrapped at start: by ${after.wrapped_by} at ${after.rewrapped_at}`);
      assert.ok(!after.wrapped.equals(before.wrapped));
      const agentKey = (await post('/compute/api-keys/create', { name: 'r', kind: 'agent' }, owner.token)).body.payload
        .key as string;
      await agents({ key: agentKey, apiUrl: rotated.url, labels: { rotation: 'yes' } });
      await waitFor(
        'the job done',
        async () => (await v0ok('GET', `/jobs/${job.id}`, { token: owner.token, status: 200 })).state === 'SUCCEEDED',
        30_000,
      );
      const { lines } = await v0ok('GET', `/jobs/${job.id}/logs?afterSeq=0`, { token: owner.token, status: 200 });
      assert.equal(lines[0].line, 'got rotated-ok');
    } finally {
      await rotated.stop();
      // The suite's processes hold key 1 only: wrap every data key with it again.
      await createDataKeys(db, [key1, key2]).rewrap();
    }
  });
});
