// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { agentPool, waitFor } from '../support/agents';
import { compute } from '../support/cli';
import { testEnv } from '../support/env';
import { inState, newWorkspace, ok, retrieve, storedLines, submit, waitForJob } from '../support/http';
import { managedJob, managedKey, newRegion, workspaceIn } from '../support/managed-pool';

// A managed agent runs strangers' jobs, so each runs in a sandbox (src/reference-agent/sandbox.ts):
// its own user, PID namespace and filesystem view. Each probe below is what a hostile job tried
// against the agent that runs it; on an unsandboxed agent every one of them succeeds.

/** A shell function that runs its second argument and prints whether it worked. */
const PROBE =
  'probe() { if sh -c "$2" >/dev/null 2>&1; then echo "probe $1: ALLOWED"; else echo "probe $1: denied"; fi; }';

/** Each probe's name and outcome, in the job's log as `probe <name>: denied|ALLOWED`. */
const probesOf = (lines: string[]) =>
  Object.fromEntries(lines.map((l) => /^probe (\S+): (\w+)$/.exec(l)).flatMap((m) => (m ? [[m[1], m[2]]] : [])));

describe('the managed agent’s sandbox', () => {
  const start = agentPool();

  it('a job reaches neither the agent’s key, folder and process nor another job’s folder, and still runs, sees its env and uploads its artifacts', async function () {
    this.timeout(90_000);
    const region = newRegion();
    const pool = await managedKey();
    const { key } = await workspaceIn(region);
    const agent = await start({ key: pool, region, concurrency: 2 });
    const nodeKey = JSON.parse(fs.readFileSync(path.join(agent.dir, 'node.json'), 'utf8')).nodeKey as string;

    // A neighbour of another workspace, running while the probes run.
    const other = await workspaceIn(region);
    const neighbour = await managedJob(other.key, { command: 'echo neighbour-secret > secret.txt; sleep 60' });
    await waitForJob(other.key, neighbour.job_id, inState('running'), 30_000);
    const neighbourDir = await waitForDir(path.join(agent.dir, 'work'), neighbour.job_id);

    const agentPid = agent.child.pid;
    const command = [
      PROBE,
      'echo "uid $(id -u)"',
      'echo "token $DEPLOY_TOKEN"',
      `probe node-file "cat ${agent.dir}/node.json"`,
      'probe node-file-relative "cat ../../node.json"',
      `probe agent-folder "ls ${agent.dir}"`,
      `probe neighbour-folder "cat ${neighbourDir}/secret.txt"`,
      `probe agent-environ "cat /proc/${agentPid}/environ"`,
      `probe agent-cmdline "cat /proc/${agentPid}/cmdline"`,
      `probe signal-agent "kill -0 ${agentPid}"`,
      'probe write-etc "touch /etc/compute-probe"',
      'probe write-usr "touch /usr/compute-probe"',
      'probe write-root "touch /compute-probe"',
      `probe write-agent-folder "touch ${agent.dir}/probe"`,
      'probe write-tmp "touch /tmp/compute-probe"',
      'probe write-own-folder "touch here"',
      // Everything any process here shows of itself, and every process there is.
      'for f in /proc/[0-9]*/environ /proc/[0-9]*/cmdline; do echo "proc $f $(tr "\\0" " " < $f 2>/dev/null)"; done',
      'ps -eo user,pid,args | sed "s/^/ps /"',
      // The old chain's last hope: a link out, named as an artifact, for the agent to upload.
      `ln -s ${agent.dir}/node.json stolen.txt`,
      'echo kept > out.txt',
    ].join('\n');
    const job = await managedJob(key, {
      command,
      env: { DEPLOY_TOKEN: 'tok-123' },
      artifacts: { paths: ['out.txt', 'stolen.txt'] },
    });
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(done.state, 'succeeded', JSON.stringify(done));
    const lines = await storedLines(job.job_id);

    assert.deepEqual(probesOf(lines), {
      'node-file': 'denied',
      'node-file-relative': 'denied',
      'agent-folder': 'denied',
      'neighbour-folder': 'denied',
      'agent-environ': 'denied',
      'agent-cmdline': 'denied',
      'signal-agent': 'denied',
      'write-etc': 'denied',
      'write-usr': 'denied',
      'write-root': 'denied',
      'write-agent-folder': 'denied',
      'write-tmp': 'ALLOWED',
      'write-own-folder': 'ALLOWED',
    });
    const uid = Number(lines.find((l) => l.startsWith('uid '))?.slice(4));
    assert.ok(uid >= 900_000, `a sandbox user, not root nor the agent's: uid ${uid}`);
    assert.ok(lines.includes('token tok-123'), 'the job sees its own env');
    const all = lines.join('\n');
    for (const [what, secret] of [
      ['the node key', nodeKey],
      ['the managed-pool key', pool],
    ]) {
      assert.ok(
        !all.includes(secret) && !all.includes(secret.split('_')[1]!),
        `${what} shows nowhere in the job's output`,
      );
    }
    assert.ok(
      !lines.some((l) => l.startsWith('ps ') && l.includes('compute.js')),
      `ps shows no agent:\n${lines.filter((l) => l.startsWith('ps ')).join('\n')}`,
    );
    assert.ok(
      lines.some((l) => l.startsWith('proc ')),
      'the /proc walk ran',
    );
    assert.deepEqual(
      done.artifacts.map((a: { name: string }) => a.name),
      ['out.txt'],
      'the link out is no artifact',
    );

    // The probes were not denied for want of a target: the neighbour's file and the agent were there.
    assert.equal(fs.readFileSync(path.join(neighbourDir, 'secret.txt'), 'utf8').trim(), 'neighbour-secret');
    assert.equal((await retrieve(other.key, neighbour.job_id)).state, 'running');
    process.kill(agentPid, 0);
    await ok('/compute/jobs/cancel', { job_id: neighbour.job_id }, other.key);
  });

  it('keeps its key off its command line and its node file to itself', async function () {
    this.timeout(60_000);
    const pool = await managedKey();
    const agent = await start({ key: pool, region: newRegion() });
    const cmdline = fs.readFileSync(`/proc/${agent.child.pid}/cmdline`, 'utf8');
    assert.ok(!cmdline.includes(pool.split('_')[1]!), 'the key is not in argv, which ps shows to every user');
    assert.equal(fs.statSync(agent.dir).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(agent.dir, 'node.json')).mode & 0o777, 0o600);

    const onArgv = await compute([
      'agent',
      '--key',
      pool,
      '--dir',
      fs.mkdtempSync(path.join(testEnv().dataDir, 'agent-')),
      '--region',
      newRegion(),
    ]);
    assert.equal(onArgv.code, 1);
    assert.match(
      onArgv.stderr.trim(),
      /^error: a managed-pool key never goes on the command line, where ps shows it to every user of the host/,
    );
  });

  it('refuses to start without its sandbox, in one line that says what is missing', async function () {
    this.timeout(60_000);
    const dir = fs.mkdtempSync(path.join(testEnv().dataDir, 'agent-'));
    // No bwrap on this PATH (node is run by its absolute path).
    const run = await compute(['agent', '--dir', dir, '--region', newRegion()], {
      env: { COMPUTE_AGENT_KEY: await managedKey(), PATH: dir },
    });
    assert.equal(run.code, 1);
    assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
    assert.match(
      run.stderr,
      /^error: a managed-pool agent runs every job in a sandbox, and the job sandbox needs bwrap \(Debian's bubblewrap package\), which is not installed/,
    );
    assert.ok(!fs.existsSync(path.join(dir, 'node.json')), 'it registered nothing');
  });

  it('stops a sandboxed job gracefully: SIGTERM reaches the command, which is still reported', async function () {
    this.timeout(60_000);
    const region = newRegion();
    const { key } = await workspaceIn(region);
    const agent = await start({ key: await managedKey(), region, env: { AGENT_KILL_GRACE_MS: '5000' } });
    const job = await managedJob(key, {
      command: "trap 'echo stopping; exit 3' TERM; echo started; while :; do sleep 0.1; done",
    });
    await waitForJob(key, job.job_id, inState('running'), 30_000);
    await waitFor('the job to start', async () => (await storedLines(job.job_id)).includes('started'));
    process.kill(agent.child.pid, 'SIGTERM'); // drain
    // Two signals at once would merge into one: the second goes once the first is taken.
    await waitFor('the agent to drain', () => agent.log().includes('draining'));
    process.kill(agent.child.pid, 'SIGTERM'); // and stop the running job
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(done.exitCode, 3, JSON.stringify(done));
    assert.ok((await storedLines(job.job_id)).includes('stopping'), 'its trap ran');
  });

  it('a self-hosted agent asks for the same sandbox with --sandbox', async function () {
    this.timeout(60_000);
    const { key } = await newWorkspace();
    const agent = await start({ key, sandbox: true });
    const job = await submit(key, { command: `echo "uid $(id -u)"; cat ${agent.dir}/node.json || echo no-node-file` });
    const done = await waitForJob(key, job.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(done.state, 'succeeded');
    const lines = await storedLines(job.job_id);
    assert.ok(Number(lines.find((l) => l.startsWith('uid '))?.slice(4)) >= 900_000, lines.join('\n'));
    assert.ok(lines.includes('no-node-file'));
  });
});

/** The work folder the agent made for `jobId` (named `<jobId>-…`). */
async function waitForDir(workRoot: string, jobId: string): Promise<string> {
  let found: string | undefined;
  await waitFor(
    `the work folder of ${jobId}`,
    () =>
      (found = fs.existsSync(workRoot) ? fs.readdirSync(workRoot).find((d) => d.startsWith(`${jobId}-`)) : undefined),
  );
  return path.join(workRoot, found!);
}
