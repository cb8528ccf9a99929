// lane: isolated (test/lanes.ts)
// temporal: dev, server
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../src/stack/ports';
import { agentPool, waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { testEnv } from '../support/env';
import { inState, newWorkspace, ok, retrieve, sleep, submit, waitForJob, storedLines } from '../support/http';

const hasLine = (jobId: string, line: string) => async () => (await storedLines(jobId)).includes(line);

describe('agent failures on the real stack', () => {
  const start = agentPool();

  it('kill -9 of an agent mid-job: requeued after the loss window, finished elsewhere, each line once; the agent resumes as its node', async () => {
    const { key } = await newWorkspace();
    const first = await start({ key });
    const job = await submit(key, {
      command: 'echo attempt-$COMPUTE_ATTEMPT start; sleep 3; echo attempt-$COMPUTE_ATTEMPT end',
    });
    await waitFor('attempt 1 to start', hasLine(job.job_id, 'attempt-1 start'));
    process.kill(first.child.pid, 'SIGKILL');
    await first.child.exited;

    await start({ key });
    const done = await waitForJob(key, job.job_id, inState('succeeded'), 30_000);
    assert.equal(done.attempt, 2);
    assert.deepEqual(await storedLines(job.job_id), ['attempt-1 start', 'attempt-2 start', 'attempt-2 end']);

    const firstNode = first.nodeId();
    const nodesBefore = (await ok('/compute/nodes/list', {}, key)).nodes.length;
    const back = await start({ key, dir: first.dir });
    const next = await submit(key, { command: 'echo again' });
    await waitForJob(key, next.job_id, inState('succeeded'), 15_000);
    assert.equal(
      (await ok('/compute/nodes/list', {}, key)).nodes.length,
      nodesBefore,
      'the restarted agent registered no new node',
    );
    assert.equal(back.nodeId(), firstNode, 'its identity file still names its node');
  });

  it('a frozen agent brought back gets 409 for its late log push and result, stops the job and forgets it', async () => {
    const { key } = await newWorkspace();
    const frozen = await start({ key, concurrency: 2 });
    // Each attempt waits at the gate, opened once the first agent is frozen: both jobs are still
    // running there when it stops, however slowly they got to it.
    const env = { GATE: path.join(testEnv().dataDir, `frozen-${Date.now()}.gate`) };
    const wait = 'while [ ! -e "$GATE" ]; do sleep 0.1; done';
    const chatty = await submit(key, {
      command: `echo x-$COMPUTE_ATTEMPT; ${wait}; echo late-x-$COMPUTE_ATTEMPT`,
      env,
    });
    const quiet = await submit(key, { command: `echo y-$COMPUTE_ATTEMPT; ${wait}`, env });
    // The attempt each job runs on the frozen agent. Not always the first: a claim that answers
    // after the poll stopped waiting for it has its assignment withdrawn (an `undelivered`
    // attempt), and the job goes out again as the next.
    const runningAttempt = async (jobId: string, prefix: string) => {
      const lines = await storedLines(jobId);
      const first = lines.map((l) => new RegExp(`^${prefix}-(\\d+)$`).exec(l)).find(Boolean);
      return first ? Number(first[1]) : undefined;
    };
    let attempts: (number | undefined)[] = [];
    await waitFor('both jobs running on the first agent', async () => {
      attempts = await Promise.all([runningAttempt(chatty.job_id, 'x'), runningAttempt(quiet.job_id, 'y')]);
      return attempts.every((n) => n !== undefined);
    }).catch(async (err: Error) => {
      // Where each job stopped short: the failure is read from this alone.
      const where = await Promise.all(
        [chatty, quiet].map(async (j) => ({ ...(await retrieve(key, j.job_id)), lines: await storedLines(j.job_id) })),
      );
      throw new Error(`${err.message}: ${JSON.stringify(where)}\nagent: ${frozen.log().slice(-3000)}`);
    });
    process.kill(frozen.child.pid, 'SIGSTOP');
    fs.writeFileSync(env.GATE, '');

    await start({ key, concurrency: 2 });
    const [x, y] = attempts as number[];
    const finals: number[] = [];
    for (const [j, held] of [
      [chatty, x],
      [quiet, y],
    ] as const) {
      const done = await waitForJob(key, j.job_id, inState('succeeded'), 30_000);
      assert.ok(done.attempt > held, `${j.job_id} finished in a later attempt than the frozen one`);
      finals.push(done.attempt);
    }
    process.kill(frozen.child.pid, 'SIGCONT');
    await waitFor('the late agent to give up both jobs', () => {
      const log = frozen.log();
      return log.includes('stopping the job and forgetting it') && log.includes('result refused: the job moved on');
    });
    assert.deepEqual(
      await storedLines(chatty.job_id),
      [`x-${x}`, `x-${finals[0]}`, `late-x-${finals[0]}`],
      "the late attempt's last line was refused",
    );
    assert.deepEqual(await storedLines(quiet.job_id), [`y-${y}`, `y-${finals[1]}`]);
    for (const j of [chatty, quiet]) assert.equal((await retrieve(key, j.job_id)).state, 'succeeded');
  });

  it('kill -9 of the API mid-job and a restart: the agent carries on, buffered lines arrive, nothing doubled', async () => {
    const { key } = await newWorkspace();
    const port = await freePort();
    // A long loss window for jobs this API submits: the agent cannot heartbeat while it is down.
    const env = { AGENT_LOST_AFTER_MS: '60000' };
    let api = await spawnApi(port, env);
    try {
      await start({ key, apiUrl: `http://127.0.0.1:${port}` });
      const job = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: 'for i in $(seq 1 40); do echo line-$i; sleep 0.1; done' },
        key,
        `http://127.0.0.1:${port}`,
      );
      await waitFor('the first lines', hasLine(job.job_id, 'line-3'));
      process.kill(-api.pid, 'SIGKILL');
      await api.exited;
      await sleep(1500);
      api = await spawnApi(port, env);
      await waitForJob(key, job.job_id, inState('succeeded'), 30_000);
      assert.deepEqual(
        await storedLines(job.job_id),
        Array.from({ length: 40 }, (_, i) => `line-${i + 1}`),
      );
    } finally {
      await api.stop(2000);
    }
  });
});
