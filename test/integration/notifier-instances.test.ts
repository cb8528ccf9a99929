// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Client, Connection } from '@temporalio/client';
import pg from 'pg';
import { NOTIFY } from '../../src/db/channels';
import { LISTENER_NAME } from '../../src/db/listener-peers';
import { Notifier } from '../../src/db/notifier';
import { ManifestSchema } from '../../src/jobs/schemas';
import { logContext } from '../../src/logging/context';
import { workflowIdOf } from '../../src/temporal/job-workflow-client';
import { waitFor } from '../support/agents';
import { quietLog, testEnv } from '../support/env';
import { newWorkspace } from '../support/http';
import { jobsServiceOn, memberOf } from '../support/jobs-service';
import { suiteClient } from '../support/temporal-client';

// A queued job's NOTIFY wakes every LISTEN connection of the database, each in a transaction of
// its own; while an instance's listener is the only one, its submits offer the job in memory
// instead (src/db/notifier.ts). Each notifier here has a name of its own, so the suite's own
// instances are not counted. A bare LISTEN session counts as an earlier build's listener: the one
// other file that keeps one (logs.test.ts) is in this lane too, so never runs beside this one.
describe('instances that find one another', function () {
  this.timeout(30_000);
  let connection: Connection;
  let client: Client;
  const notifiers: Notifier[] = [];
  let raw: pg.Client;
  const heard: string[] = [];
  before(async () => {
    connection = await Connection.connect({ address: testEnv().config.temporal.address! });
    client = await suiteClient(connection);
    // A plain LISTEN connection, not an instance: what it hears is what was NOTIFYed.
    raw = new pg.Client({ connectionString: testEnv().config.databaseUrl! });
    raw.on('notification', (m) => heard.push(m.payload ?? ''));
    await raw.connect();
    await raw.query(`LISTEN ${NOTIFY.jobQueued}`);
    // Instances count a session whose last statement was a LISTEN as an earlier build's listener.
    await raw.query('SELECT 2 AS observer');
  });
  after(async () => {
    await Promise.all(notifiers.map((n) => n.stop()));
    await raw.end();
    await connection.close();
  });

  /** An instance's listener named `name`; `onQueued` hears its queued-job channel from before it starts. */
  const notifierNamed = async (name: string, pingMs = 60_000, onQueued?: (payload: string) => void) => {
    const n = new Notifier(testEnv().config.databaseUrl!, quietLog, pingMs, name);
    notifiers.push(n);
    if (onQueued) n.subscribe(NOTIFY.jobQueued, onQueued);
    await n.start();
    return n;
  };
  /** What the plain listener heard up to now: a marker NOTIFYed last arrives after everything before it. */
  const heardUpToNow = async () => {
    const marker = `marker ${randomUUID()}`;
    await testEnv().db.raw('SELECT pg_notify(?, ?)', [NOTIFY.jobQueued, marker]);
    await waitFor('the marker', async () => heard.includes(marker));
    const upTo = heard.splice(0, heard.indexOf(marker) + 1);
    return upTo.slice(0, -1);
  };
  const manifest = ManifestSchema.parse({ type: 'COMMAND', command: 'echo offered', selector: { nobody: 'x' } });

  it('alone, a submit offers its queued job in memory and NOTIFYs nothing; once another instance is up, it NOTIFYs that one and the next', async () => {
    const name = `${LISTENER_NAME}-test-${randomUUID().slice(0, 8)}`;
    const offered: string[] = [];
    const contexts = new Map<string, unknown>();
    const a = await notifierNamed(name, 60_000, (p) => {
      offered.push(p);
      contexts.set(p, logContext.getStore());
    });
    assert.equal(a.alone, true, 'the only listener of its name');
    const { workspaceId } = await newWorkspace();
    const { jobs } = await jobsServiceOn(client, undefined, a);
    const payloadOf = (jobId: string) => `${workspaceId} ${jobId} {"nobody": "x"}`;
    await heardUpToNow();

    // Submitted within a request: the polls its offer wakes carry nothing of it.
    const first = await logContext.run({ requestId: 'req_submit' }, () => jobs.submit(memberOf(workspaceId), manifest));
    assert.deepEqual(
      offered.filter((p) => p.includes(first.id)),
      [payloadOf(first.id)],
      'offered to this instance’s polls, with its selector',
    );
    assert.ok(contexts.has(payloadOf(first.id)));
    assert.equal(contexts.get(payloadOf(first.id)), undefined, 'outside the submit’s request, as a NOTIFY arrives');
    assert.deepEqual(
      (await heardUpToNow()).filter((p) => p.includes(first.id)),
      [],
      'no NOTIFY',
    );

    // A second instance announces itself as its listener comes up: the first stops being alone at
    // once (its next count is a minute away), and NOTIFYs what it offered in memory meanwhile.
    const toB: string[] = [];
    const b = await notifierNamed(name, 60_000, (p) => toB.push(p));
    await waitFor('the first hears the second', async () => !a.alone);
    assert.equal(b.alone, false);
    await waitFor('the second is offered the first job', async () => toB.includes(payloadOf(first.id)));
    const second = await jobs.submit(memberOf(workspaceId), manifest);
    assert.deepEqual(
      (await heardUpToNow()).filter((p) => p.includes(first.id) || p.includes(second.id)),
      [payloadOf(first.id), payloadOf(second.id)],
      'both NOTIFYed',
    );
    await waitFor('the second is offered the second job', async () => toB.includes(payloadOf(second.id)));
    // Each listener is a connection of its own: the first may hear the NOTIFY after the second does.
    await waitFor('the first is offered the second job, through its own listener', async () =>
      offered.includes(payloadOf(second.id)),
    );
    for (const job of [first, second]) await client.workflow.getHandle(workflowIdOf(job.id)).terminate('test over');
  });

  it('counts the listeners at each ping, an earlier build’s among them, and NOTIFYs none of what it offered before a count that found none', async () => {
    const name = `${LISTENER_NAME}-test-${randomUUID().slice(0, 8)}`;
    const a = await notifierNamed(name, 200);
    const { db } = testEnv();
    const { workspaceId } = await newWorkspace();
    const { jobs } = await jobsServiceOn(client, undefined, a);
    const b = await notifierNamed(name);
    await waitFor('the first hears the second', async () => !a.alone);
    await b.stop();
    await waitFor('the first is alone again', async () => a.alone);
    await heardUpToNow();

    // Offered alone, then counted past: a listener that comes up later cannot have missed it.
    const before = await jobs.submit(memberOf(workspaceId), manifest);
    const offeredAt = (await db.raw('SELECT clock_timestamp() AS t')).rows[0].t;
    await waitFor('a count asked and answered since', async () => {
      const { rows } = await db.raw(
        `SELECT query_start > ? AND state = 'idle' AS counted FROM pg_stat_activity WHERE application_name = ?`,
        [offeredAt, name],
      );
      return rows[0]?.counted === true;
    });
    // An earlier build names no instance and announces nothing: its listener is known by its last
    // statement, a LISTEN, then its ping's SELECT 1.
    const earlier = new pg.Client({ connectionString: testEnv().config.databaseUrl! });
    await earlier.connect();
    try {
      await earlier.query(`LISTEN ${NOTIFY.jobQueued}`);
      await waitFor('an earlier build’s listener is counted', async () => !a.alone);
      await earlier.query('SELECT 1');
      await sleep(500);
      assert.equal(a.alone, false, 'and still after its ping');
      assert.deepEqual(
        (await heardUpToNow()).filter((p) => p.includes(before.id)),
        [],
        'what was offered before that count is not NOTIFYed',
      );
    } finally {
      await earlier.end();
    }
    await waitFor('alone once it is gone', async () => a.alone);
    await client.workflow.getHandle(workflowIdOf(before.id)).terminate('test over');
  });

  it('NOTIFYs a job whose commit was sent while alone and answered after another instance showed up', async () => {
    // The instance's listener as the submit meets it: alone as the commit is sent, not once it is in.
    const offers: string[] = [];
    const listener = {
      alone: true,
      offer: (_channel: string, payload: string) => (offers.push(payload), false),
    } as unknown as Notifier;
    const { workspaceId } = await newWorkspace();
    const { jobs } = await jobsServiceOn(client, undefined, listener);
    await heardUpToNow();
    const job = await jobs.submit(memberOf(workspaceId), manifest);
    const payload = `${workspaceId} ${job.id} {"nobody": "x"}`;
    assert.deepEqual(offers, [payload], 'offered first');
    await waitFor('the NOTIFY', async () => heard.includes(payload));
    await client.workflow.getHandle(workflowIdOf(job.id)).terminate('test over');
  });
});
