// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { agentPool } from '../support/agents';
import { presignDownload, send } from '../support/artifacts';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { inState, ok, waitForJob } from '../support/http';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe("artifacts of an agent's job", () => {
  const start = agentPool();

  it('uploads what matches artifacts.paths before the result; the job lists them and a signed URL serves them', async () => {
    const session = await login();
    const { key } = await ok('/compute/api-keys/create', { name: 'fleet', kind: 'agent' }, session.token);
    await start({ key });
    const job = await ok(
      '/compute/jobs/submit',
      {
        type: 'COMMAND',
        // A stray file beside the job's folder must not be picked up by `../*`.
        command:
          'mkdir -p out && echo one > out/a.txt && printf two > out/b.txt && echo \'{"ok":true}\' > report.json && echo no > ../stray-$COMPUTE_JOB_ID.txt',
        artifacts: { paths: ['out/*.txt', 'report.json', 'missing/**', '../*'] },
      },
      session.token,
    );
    const done = await waitForJob(session.token, job.job_id, inState('succeeded', 'failed'), 30_000);
    assert.equal(done.state, 'succeeded');
    const expected: Record<string, string> = {
      'out/a.txt': 'one\n',
      'out/b.txt': 'two',
      'report.json': '{"ok":true}\n',
    };
    const listed = [...done.artifacts].sort((a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name));
    assert.deepEqual(
      listed.map((a: { name: string; size: number; sha256: string }) => [a.name, a.size, a.sha256]),
      Object.entries(expected).map(([name, body]) => [name, body.length, sha256(body)]),
      'the job lists exactly the matching files, with size and sha256, by the time it is terminal',
    );

    for (const artifact of listed) {
      const { url } = await presignDownload(session.token, job.job_id, artifact.id);
      const got = await send('GET', url);
      assert.equal(got.status, 200);
      assert.equal(got.body.toString(), expected[artifact.name]);
    }
    const lines = await testEnv().db('job_logs').where({ job_id: job.job_id, kind: 'line' }).pluck('line');
    assert.ok(
      lines.some((l: string) => l.startsWith('[compute-agent] uploaded artifact out/a.txt (4 bytes')),
      lines.join('\n'),
    );
  });
});
