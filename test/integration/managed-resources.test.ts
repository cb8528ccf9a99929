// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createApiKey } from '../../src/auth/api-keys';
import { agentPool, waitFor } from '../support/agents';
import { login } from '../support/auth';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import { inState, ok, retrieve, storedLines, waitForJob } from '../support/http';
import {
  managedJob,
  managedKey,
  newRegion,
  onManagedPlan,
  registerManaged,
  workspaceIn,
} from '../support/managed-pool';
import { v0ok } from '../support/v0';

// A managed job gets the resources it pays for and no more: its control group holds it to its
// `cpu` and `memoryMb`, the agent reports what it really used, and an agent is handed only jobs
// that fit what it has free (src/reference-agent/job-cgroup.ts, src/agents/free-room.ts).

const db = () => testEnv().db;

/**
 * A job's control group's CPU quota and memory limit, on cgroup v2 or v1; undefined until the
 * agent has written them (the kernel fills a new group's files with "no limit" first).
 */
function limitsOf(name: string): { quotaUs: number; periodUs: number; memoryBytes: number } | undefined {
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').trim() : undefined);
  if (fs.existsSync('/sys/fs/cgroup/cgroup.controllers')) {
    const [quota, period] = read(`/sys/fs/cgroup/compute-jobs/${name}/cpu.max`)?.split(' ') ?? [];
    const memory = read(`/sys/fs/cgroup/compute-jobs/${name}/memory.max`);
    return quota && memory && quota !== 'max' && memory !== 'max'
      ? { quotaUs: Number(quota), periodUs: Number(period), memoryBytes: Number(memory) }
      : undefined;
  }
  const quota = read(`/sys/fs/cgroup/cpu/compute-jobs/${name}/cpu.cfs_quota_us`);
  const period = read(`/sys/fs/cgroup/cpu/compute-jobs/${name}/cpu.cfs_period_us`);
  const memory = read(`/sys/fs/cgroup/memory/compute-jobs/${name}/memory.limit_in_bytes`);
  // Unlimited: a quota of -1, a memory limit of the largest page-aligned 64-bit value.
  return quota && period && memory && quota !== '-1' && BigInt(memory) < 2n ** 62n
    ? { quotaUs: Number(quota), periodUs: Number(period), memoryBytes: Number(memory) }
    : undefined;
}

/** What the agent reported for the job's last attempt (`usage` of its result). */
async function reportedUsage(jobId: string): Promise<Record<string, number>> {
  const row = await db()('job_attempts')
    .where({ job_id: jobId })
    .whereNotNull('result')
    .orderBy('attempt', 'desc')
    .first('result');
  return row.result.usage;
}

describe('a managed job’s resources', () => {
  const start = agentPool();

  it('a job asking for 1 CPU that spins 4 busy threads for 5 s runs under a quota of one core, and reports what its control group counted', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    await start({ key: await managedKey(), region });
    const spin = 'for i in 1 2 3 4; do (while :; do :; done) & done; sleep 5; kill $(jobs -p); echo spun';
    const job = await managedJob(key, { command: spin, resources: { cpu: 1, memoryMb: 512 } });
    await waitForJob(key, job.job_id, inState('running'), 30_000);
    const { lease_id: leaseId } = await db()('job_attempts').where({ job_id: job.job_id }).first('lease_id');
    // The limits its control group holds while it runs.
    assert.deepEqual(await waitFor('its control group', () => limitsOf(`${job.job_id}-${leaseId}`)), {
      quotaUs: 100_000,
      periodUs: 100_000,
      memoryBytes: 512 * 1024 * 1024,
    });
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 40_000);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    const usage = await reportedUsage(job.job_id);
    // Unlimited, four spinning threads on this machine's two cores would count about 10 CPU-seconds
    // (on an idle machine this counts 5.05 to 5.08). The quota holds them to one core for the job's
    // runtime; the suite's other lane may hold them below it, never above.
    const wall = done.runtimeMs / 1000;
    assert.ok(usage.cpuSeconds <= wall * 1.05, `one core at most: ${usage.cpuSeconds} CPU-s in ${wall} s`);
    assert.ok(usage.cpuSeconds >= 0.5, `counted while it spun: ${JSON.stringify(usage)}`);
    assert.ok(usage.peakMemoryMb > 0 && usage.gbSeconds > 0, JSON.stringify(usage));
  });

  it('a job asking for 256 MB that allocates 1 GB is killed for it, while its neighbour runs on', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    await start({ key: await managedKey(), region, concurrency: 2 });
    const neighbour = await managedJob(key, { command: 'sleep 3; echo neighbour done', resources: { memoryMb: 256 } });
    await waitForJob(key, neighbour.job_id, inState('running'), 30_000);
    // tail holds its last line in memory until the line ends: a gigabyte of zeros is one line.
    const greedy = await managedJob(key, {
      command: 'head -c 1G /dev/zero | tail -n 1 > /dev/null && echo survived',
      resources: { memoryMb: 256 },
    });
    const killed = await waitForJob(key, greedy.job_id, inState('succeeded', 'failed'), 40_000);
    assert.equal(killed.state, 'failed', JSON.stringify(killed));
    assert.equal(killed.failureReason, 'out_of_memory');
    const lines = await storedLines(greedy.job_id);
    assert.ok(!lines.includes('survived'), lines.join('\n'));
    assert.ok(
      lines.some((l) => l.includes('out of memory: the job passed its memoryMb of 256')),
      lines.join('\n'),
    );
    assert.ok((await reportedUsage(greedy.job_id)).peakMemoryMb <= 256, 'held to its limit');
    const other = await waitForJob(key, neighbour.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(other.state, 'succeeded', JSON.stringify(other));
  });

  it('an agent with 2 CPUs free is not handed a 4-CPU job, and is handed it once it has the room', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const agent = await start({ key: await managedKey(), region, concurrency: 2, args: ['--cpus', '4'] });
    const half = await managedJob(key, { command: 'sleep 4', resources: { cpu: 2 } });
    await waitForJob(key, half.job_id, inState('running'), 30_000);
    const whole = await managedJob(key, { command: 'echo whole', resources: { cpu: 4 } });
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal((await retrieve(key, whole.job_id)).state, 'queued', 'no room while the 2-CPU job runs');
    const halfDone = await waitForJob(key, half.job_id, inState('succeeded', 'failed'), 30_000);
    // The result frees its CPUs and wakes the agent's waiting poll: no wait for the poll to renew.
    const wholeDone = await waitForJob(key, whole.job_id, inState('succeeded', 'failed'), 10_000);
    assert.equal(wholeDone.state, 'succeeded');
    assert.equal(wholeDone.nodeId, agent.nodeId());
    assert.ok(
      Date.parse(wholeDone.startedAt) >= Date.parse(halfDone.finishedAt),
      `${wholeDone.startedAt} after ${halfDone.finishedAt}`,
    );
  });

  it('hands out GPUs by index, one job per GPU, in CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    // This machine has no GPU: the agent is told it has two, and hands out their indices.
    await start({ key: await managedKey(), region, concurrency: 3, args: ['--cpus', '8', '--gpus', '2'] });
    const gpuJob = () =>
      managedJob(key, {
        command: 'echo "gpus $CUDA_VISIBLE_DEVICES $NVIDIA_VISIBLE_DEVICES"; sleep 3',
        resources: { gpu: 1 },
      });
    const [a, b] = [await gpuJob(), await gpuJob()];
    await Promise.all([a, b].map((j) => waitForJob(key, j.job_id, inState('running'), 30_000)));
    const c = await gpuJob();
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal((await retrieve(key, c.job_id)).state, 'queued', 'both GPUs are taken');
    const done = await Promise.all(
      [a, b, c].map((j) => waitForJob(key, j.job_id, inState('succeeded', 'failed'), 30_000)),
    );
    assert.deepEqual(
      done.map((j) => j.state),
      ['succeeded', 'succeeded', 'succeeded'],
    );
    const seen = await Promise.all(
      [a, b, c].map(async (j) => (await storedLines(j.job_id)).find((l) => l.startsWith('gpus '))),
    );
    const [ia, ib, ic] = seen.map((l) => l!.split(' ')[1]);
    assert.deepEqual([ia, ib].sort(), ['0', '1'], `one GPU each: ${seen.join(' | ')}`);
    assert.ok(['0', '1'].includes(ic!), seen.join(' | '));
    for (const line of seen) assert.equal(line!.split(' ')[1], line!.split(' ')[2], 'CUDA and NVIDIA agree');
    const cpuOnly = await managedJob(key, { command: 'echo "gpus [$CUDA_VISIBLE_DEVICES]"' });
    await waitForJob(key, cpuOnly.job_id, inState('succeeded'), 30_000);
    assert.ok((await storedLines(cpuOnly.job_id)).includes('gpus []'), 'a job without GPUs sees none');
  });

  it('a job that fits no agent of its pool and region says why it waits, in jobs get and on /v0', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const session = await login();
    await onManagedPlan(session.user.workspaceId, region);
    const { key } = await createApiKey(db(), { workspaceId: session.user.workspaceId, name: 'test', kind: 'user' });
    const nobody = await managedJob(key, { command: 'true' });
    await waitFor(
      'its run to start',
      async () => (await db()('jobs').where({ id: nobody.job_id }).first('workflow_started')).workflow_started,
    );
    assert.equal(
      (await retrieve(key, nobody.job_id)).waitingReason,
      `no agent of the managed pool in region ${region} is online`,
    );

    await start({ key: await managedKey(), region, args: ['--cpus', '2', '--memory-mb', '4096'] });
    await waitForJob(key, nobody.job_id, inState('succeeded'), 30_000);
    const huge = await managedJob(key, { command: 'true', resources: { cpu: 8 } });
    await waitFor(
      'its run to start',
      async () => (await db()('jobs').where({ id: huge.job_id }).first('workflow_started')).workflow_started,
    );
    const why =
      'no agent of the managed pool in region ' +
      region +
      ' has the room it asks for (cpu 8, memoryMb 1024, gpu 0); the most any has: cpu 2, memoryMb 4096, gpu 0';
    const got = await compute(['jobs', 'get', huge.job_id, '--json'], { env: { COMPUTE_API_KEY: key } });
    assert.equal(got.code, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).waitingReason, why);
    assert.equal((await v0ok('GET', `/jobs/${huge.job_id}`, { token: session.token })).waitingReason, why);
    assert.equal((await retrieve(key, huge.job_id)).state, 'queued');
    await ok('/compute/jobs/cancel', { job_id: huge.job_id }, key);
  });

  it('a node that registers no capacity is handed jobs whatever they ask for', async () => {
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const node = await registerManaged(await managedKey(), region);
    const job = await managedJob(key, { command: 'true', resources: { cpu: 512, memoryMb: 1024 * 1024 } });
    await waitFor(
      'the job to start its workflow',
      async () => (await db()('jobs').where({ id: job.job_id }).first('workflow_started')).workflow_started,
    );
    const polled = await ok('/compute/nodes/poll', { nodeId: node.nodeId, waitSeconds: 5 }, node.nodeKey);
    assert.deepEqual(
      polled.jobs.map((j: { job_id: string }) => j.job_id),
      [job.job_id],
    );
    assert.deepEqual(
      polled.jobs[0].resources,
      { cpu: 512, memoryMb: 1024 * 1024, gpu: 0 },
      'the poll says what the job pays for',
    );
  });
});
