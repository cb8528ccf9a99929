import assert from 'node:assert/strict';
import { jobRunStory, pendingWork } from '../support/temporal-client';
import type { Client } from '@temporalio/client';
import { meterTick } from '../../src/billing/meter';
import { meterRunning } from '../../src/billing/ledger';
import { endAll, insertRunning, withMeterPaused } from '../support/billing';
import { meterScheduleId } from '../../src/billing/meter-schedule';
import { periodScheduleId } from '../../src/billing/period-schedule';
import { waitFor } from '../support/agents';
import { testEnv } from '../support/env';
import { spawnWorker } from '../support/worker-process';
import {
  heartbeatInBackground,
  heldJob,
  inState,
  newWorkspace,
  ok,
  pollOne,
  registerNode,
  resultOf,
  sleep,
  waitForJob,
} from '../support/http';

// The usage ledger (CONTRACT §9): for every attempt, however it ended and however the meter's
// ticks (every 2 s here) fell across it, the entries add up to exactly its runtime × resources,
// or to the agent's own figures where it reported them.

const RESOURCES = { cpu: 2, memoryMb: 512, gpu: 1 };
const db = () => testEnv().db;

/** Per attempt of the job: whether each sum equals (end − assignment) × resources, exactly, in SQL's numerics. */
async function sumsOf(jobId: string) {
  const { rows } = await db().raw(
    `SELECT a.attempt, a.end_reason,
            t.cpu = s.secs * 2 AS cpu_exact, t.gpu = s.secs * 1 AS gpu_exact, t.gb = s.secs * 0.5 AS gb_exact,
            t.entries::int AS entries, t.ticks::int AS ticks, t.cpu::text AS cpu, s.secs::text AS secs
     FROM job_attempts a
     CROSS JOIN LATERAL (SELECT extract(epoch FROM a.ended_at - a.assigned_at) AS secs) s
     CROSS JOIN LATERAL (SELECT sum(cpu_seconds) AS cpu, sum(gpu_seconds) AS gpu, sum(gb_seconds) AS gb, count(*) AS entries,
                                count(*) FILTER (WHERE meter_window LIKE 'tick:%') AS ticks
                         FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) t
     WHERE a.job_id = ? ORDER BY a.attempt`,
    [jobId],
  );
  return rows as Array<{
    attempt: number;
    end_reason: string;
    cpu_exact: boolean;
    gpu_exact: boolean;
    gb_exact: boolean;
    entries: number;
    ticks: number;
    cpu: string;
    secs: string;
  }>;
}

function assertExact(label: string, sums: Awaited<ReturnType<typeof sumsOf>>, attempts: number) {
  assert.equal(sums.length, attempts, `${label}: ${JSON.stringify(sums)}`);
  for (const s of sums) {
    assert.ok(
      s.cpu_exact && s.gpu_exact && s.gb_exact,
      `${label}, attempt ${s.attempt} (${s.end_reason}): ${s.cpu} CPU-s over ${s.secs} s`,
    );
  }
}

describe('the usage ledger', () => {
  it('adds up to exactly runtime × resources for every attempt: succeeded, failed, timed out, cancelled, agent lost, retried', async function () {
    this.timeout(90_000);
    const manifest = { resources: RESOURCES, command: 'sleep 1' };
    const finishAfter = async (held: Awaited<ReturnType<typeof heldJob>>, ms: number, exitCode: number) => {
      const beats = heartbeatInBackground(held.node, [held.job.job_id]);
      await sleep(ms);
      await beats.stop();
      // A refusal says where the job's run stood (a 503 here may be an Update the server kept aborting:
      // WorkflowNotReady in docs/reference/behaviour.md).
      await ok('/compute/nodes/result', resultOf(held.node, held.job, exitCode), held.node.nodeKey).catch(
        async (err) => {
          throw new Error(`${err.message}\n${await jobRunStory(held.job.job_id)}`);
        },
      );
    };
    const scenarios: Array<{ label: string; attempts: number; run: () => Promise<string> }> = [
      {
        label: 'succeeded after a tick or two',
        attempts: 1,
        run: async () => {
          const held = await heldJob(manifest);
          await finishAfter(held, 4500, 0);
          return held.job.job_id;
        },
      },
      {
        label: 'failed',
        attempts: 1,
        run: async () => {
          const held = await heldJob(manifest);
          await finishAfter(held, 300, 3);
          return held.job.job_id;
        },
      },
      {
        label: 'timed out',
        attempts: 1,
        run: async () => {
          const held = await heldJob({ ...manifest, timeoutSeconds: 2 });
          const beats = heartbeatInBackground(held.node, [held.job.job_id]);
          await waitForJob(held.key, held.job.job_id, inState('timed-out'), 20_000);
          await beats.stop();
          return held.job.job_id;
        },
      },
      {
        label: 'cancelled (the grace ran out)',
        attempts: 1,
        run: async () => {
          const held = await heldJob(manifest);
          await sleep(500);
          await ok('/compute/jobs/cancel', { job_id: held.job.job_id }, held.key);
          await waitForJob(held.key, held.job.job_id, inState('cancelled'), 20_000);
          return held.job.job_id;
        },
      },
      {
        label: 'agent lost, then run again',
        attempts: 2,
        run: async () => {
          const held = await heldJob(manifest);
          // No heartbeat: lost after AGENT_LOST_AFTER_MS, requeued.
          const again = await pollOne(held.node, 20);
          assert.equal(again?.job_id, held.job.job_id);
          await ok('/compute/nodes/result', resultOf(held.node, again!, 0), held.node.nodeKey);
          return held.job.job_id;
        },
      },
      {
        label: 'failed, retried by its policy, succeeded',
        attempts: 2,
        run: async () => {
          const held = await heldJob({ ...manifest, retry: { maxAttempts: 2, backoffSeconds: 1 } });
          await finishAfter(held, 300, 1);
          const again = await pollOne(held.node, 20);
          await ok('/compute/nodes/result', resultOf(held.node, again!, 0), held.node.nodeKey);
          return held.job.job_id;
        },
      },
    ];
    const jobIds = await Promise.all(scenarios.map((s) => s.run()));
    let ticked = 0;
    for (const [i, s] of scenarios.entries()) {
      // The end's entry is written with the end; a retry's second attempt ends with its result.
      await waitFor(
        `${s.label}: every attempt ended`,
        async () => (await sumsOf(jobIds[i])).filter((r) => r.entries > 0).length === s.attempts,
      );
      const sums = await sumsOf(jobIds[i]);
      assertExact(s.label, sums, s.attempts);
      ticked += sums.reduce((n, r) => n + r.ticks, 0);
    }
    assert.ok(ticked > 0, 'some attempt was metered by a tick while it ran, then ended');
    const reasons = (await Promise.all(jobIds.map(sumsOf))).flat().map((r) => r.end_reason);
    for (const reason of ['result', 'timeout', 'cancelled', 'agent_lost'])
      assert.ok(reasons.includes(reason), `an attempt ended by ${reason}: ${reasons}`);
  });

  it("takes the agent's reported usage where it gives it, and the metered figure where it does not", async function () {
    this.timeout(30_000);
    const held = await heldJob({ resources: RESOURCES });
    await sleep(300);
    await ok(
      '/compute/nodes/result',
      { ...resultOf(held.node, held.job, 0), usage: { cpuSeconds: 5.5, gbSeconds: 0.125, somethingElse: 7 } },
      held.node.nodeKey,
    );
    const { rows } = await db().raw(
      `SELECT sum(cpu_seconds)::text AS cpu, sum(gb_seconds)::text AS gb, sum(gpu_seconds) = extract(epoch FROM a.ended_at - a.assigned_at) AS gpu_metered
       FROM usage_ledger u JOIN job_attempts a ON a.job_id = u.job_id AND a.attempt = u.attempt WHERE u.job_id = ? GROUP BY a.ended_at, a.assigned_at`,
      [held.job.job_id],
    );
    assert.equal(Number(rows[0].cpu), 5.5);
    assert.equal(Number(rows[0].gb), 0.125);
    assert.equal(rows[0].gpu_metered, true);
    // A result repeated (its answer was lost) changes nothing.
    await ok(
      '/compute/nodes/result',
      { ...resultOf(held.node, held.job, 0), usage: { cpuSeconds: 9 } },
      held.node.nodeKey,
    );
    const again = await db()('usage_ledger')
      .where({ job_id: held.job.job_id })
      .sum({ cpu: 'cpu_seconds' })
      .count({ n: '*' });
    assert.equal(Number(again[0].cpu), 5.5);
  });

  it('counts nothing twice: a tick whose worker is killed -9 midway, retried by another; a tick run again; a late tick of an earlier window', async function () {
    this.timeout(180_000);
    // Attempts that run through all of it, in a workspace of their own, ended afterwards.
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key, {}, 'meters');
    const N = 6000;
    const perWindow = async () =>
      (await db()('usage_ledger')
        .where({ workspace_id: workspaceId })
        .groupBy('meter_window')
        .select('meter_window', db().raw('count(*)::int AS n'))) as Array<{ meter_window: string; n: number }>;
    // Every window metered meanwhile is the test's: the suite's meter would lock attempts beside it.
    const jobIds = await withMeterPaused('billing-ledger: a meter killed midway', async (client) => {
      const jobIds = await insertRunning(workspaceId, node.nodeId, N, RESOURCES);
      try {
        await killedTickRetried(client, perWindow, N);
        // A tick run again, twice, in this process: every attempt metered to it once.
        const t1 = new Date(Date.now() + 2000);
        const grace = { cancelGraceSeconds: 1 };
        await meterTick(db(), t1, grace);
        await meterTick(db(), t1, grace);
        assert.equal((await perWindow()).find((w) => w.meter_window === `tick:${t1.toISOString()}`)?.n, N);
        // A tick of an earlier window, run late (its retry after a later one ran): nothing to add.
        const t0 = new Date(t1.getTime() - 60_000);
        await meterRunning(db(), t0, 10_000);
        assert.equal(
          (await perWindow()).find((w) => w.meter_window === `tick:${t0.toISOString()}`),
          undefined,
          'nothing for the earlier window',
        );
      } finally {
        // Their ends, as the seam writes them: each attempt's remainder.
        await endAll(jobIds);
      }
      return jobIds;
    });
    const { rows } = await db().raw(
      `SELECT count(*)::int AS attempts, count(*) FILTER (WHERE exact IS NOT TRUE)::int AS off FROM (
         SELECT (SELECT sum(cpu_seconds) FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) = extract(epoch FROM a.ended_at - a.assigned_at) * 2 AS exact
         FROM job_attempts a WHERE a.job_id = ANY(?)) x`,
      [jobIds],
    );
    // An attempt without entries (a sum of none is null) or without an end counts as off too.
    assert.equal(rows[0].attempts, N);
    assert.equal(
      rows[0].off,
      0,
      `every attempt adds up exactly; one that does not: ${JSON.stringify(await entriesOfOneOff(jobIds))}`,
    );
  });
  it('counts nothing twice when ticks of different windows run at once over the same attempts', async function () {
    this.timeout(120_000);
    const { key, workspaceId } = await newWorkspace();
    const node = await registerNode(key, {}, 'meters');
    const jobIds = await insertRunning(workspaceId, node.nodeId, 2000, RESOURCES);
    try {
      const start = Date.now();
      for (let round = 1; round <= 4; round++) {
        // Three windows a second apart, metered together (two schedules, or a retried tick beside the next).
        const ends = [0, 1, 2].map((k) => new Date(start + round * 3000 + k * 1000));
        // Small batches: many short statements, each committing while the others' are under way.
        await Promise.all(ends.map((end) => meterTick(db(), end, { cancelGraceSeconds: 1, batch: 40 })));
      }
    } finally {
      await endAll(jobIds);
    }
    const { rows } = await db().raw(
      `SELECT count(*) FILTER (WHERE NOT exact)::int AS off, min(entries)::int AS fewest FROM (
         SELECT (SELECT sum(cpu_seconds) FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) = extract(epoch FROM a.ended_at - a.assigned_at) * 2 AS exact,
                (SELECT count(*) FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) AS entries
         FROM job_attempts a WHERE a.job_id = ANY(?)) x`,
      [jobIds],
    );
    assert.equal(
      rows[0].off,
      0,
      `every attempt adds up exactly; one that does not: ${JSON.stringify(await entriesOfOneOff(jobIds))}`,
    );
    assert.ok(rows[0].fewest >= 2, 'each attempt was metered by ticks before its end');
  });
});

/** For a failure's message: the entries of an attempt whose sum is off, if any. */
async function entriesOfOneOff(jobIds: string[]) {
  const { rows } = await db().raw(
    `SELECT a.job_id, a.assigned_at, a.ended_at FROM job_attempts a WHERE a.job_id = ANY(?)
       AND (SELECT sum(cpu_seconds) FROM usage_ledger u WHERE u.job_id = a.job_id AND u.attempt = a.attempt) <> extract(epoch FROM a.ended_at - a.assigned_at) * 2 LIMIT 1`,
    [jobIds],
  );
  if (!rows[0]) return null;
  const entries = await db()('usage_ledger')
    .where({ job_id: rows[0].job_id })
    .orderBy('id')
    .select('meter_window', 'from_at', 'to_at', 'cpu_seconds', 'created_at');
  return { attempt: rows[0], entries };
}

/**
 * A meter worker of its own is killed -9 midway through a tick (some of the window's `n`
 * attempts metered, not all: its batches commit one by one); another worker takes the tick's
 * activity up once its heartbeat is missed, and the window completes, once.
 */
async function killedTickRetried(
  client: Client,
  perWindow: () => Promise<Array<{ meter_window: string; n: number }>>,
  n: number,
): Promise<void> {
  const taskQueue = `meter-kill-${Date.now()}`;
  const workers = [await spawnWorker(taskQueue, 'meter-worker-1', { METER_TICK_SECONDS: '3' })];
  try {
    const partial = await waitFor(
      'a tick midway',
      async () => (await perWindow()).find((w) => w.n > 0 && w.n < n),
      60_000,
    );
    process.kill(-workers[0].pid, 'SIGKILL');
    await workers[0].exited;
    const cut = (await perWindow()).find((w) => w.meter_window === partial.meter_window)!.n;
    assert.ok(cut < n, `killed midway (${cut} of ${n} metered)`);

    workers.push(await spawnWorker(taskQueue, 'meter-worker-2', { METER_TICK_SECONDS: '3' }));
    // Bounded by the test's timeout, not a speed: the retry waits out the heartbeat timeout (10 s)
    // and a worker start, then meters beside the ticks of later windows, all on a loaded machine.
    const meterRuns = `WorkflowType = "meter" AND TaskQueue = "${taskQueue}"`;
    await waitFor(
      'the killed tick completed by the other worker',
      async () => (await perWindow()).find((w) => w.meter_window === partial.meter_window)?.n === n,
      120_000,
    ).catch(async (err) => {
      throw new Error(
        `${err.message}\n${await pendingWork(
          client,
          meterRuns,
          workers.map((w) => w.logFile),
        )}`,
      );
    });
    const retried = await waitFor(
      "the retried activity in the run's history",
      async () => {
        for await (const run of client.workflow.list({ query: meterRuns })) {
          const events = (await client.workflow.getHandle(run.workflowId, run.runId).fetchHistory()).events ?? [];
          if (events.some((e) => (e.activityTaskStartedEventAttributes?.attempt ?? 0) >= 2)) return run.workflowId;
        }
        return undefined;
      },
      30_000,
    );
    assert.ok(retried);
  } finally {
    for (const w of workers) await w.stop(2000);
    await client.schedule
      .getHandle(meterScheduleId(taskQueue))
      .delete()
      .catch(() => undefined);
    await client.schedule
      .getHandle(periodScheduleId(taskQueue))
      .delete()
      .catch(() => undefined);
  }
}
