// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { GENERATED, differences, filesOf, generatePythonClient } from '../../scripts/python-client';
import { createApiKey } from '../../src/auth/api-keys';
import { agentPool } from '../support/agents';
import { login } from '../support/auth';
import { testEnv } from '../support/env';

// The Python client as its users get it: its generated layer is what openapi-python-client makes
// of clients/openapi.json now, and the package, pip-installed into a fresh virtual environment,
// runs a program that submits a job (twice, with one Idempotency-Key), follows its log as it is
// written and waits for its end, against the stack.

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

const PROGRAM = `
import json, os, sys
from compute_client import ComputeClient

client = ComputeClient(os.environ["API_URL"], os.environ["TOKEN"])
manifest = {"type": "COMMAND", "command": "echo hello; sleep 1; echo world >&2", "labels": {"via": "py-client"}}
job = client.submit(manifest, idempotency_key=os.environ["KEY"])
again = client.submit(manifest, idempotency_key=os.environ["KEY"])
lines = []
end = client.follow_logs(job.id, lambda l: lines.append([l.stream, l.line]))
final = client.wait_for_terminal(job.id, timeout=60)
print(json.dumps({"id": job.id, "again": again.id, "lines": lines, "end": end, "state": str(final.state), "exitCode": final.exit_code}))
`;

describe('the Python client', function () {
  this.timeout(300_000);
  const agents = agentPool();
  let tmp = '';
  after(() => tmp && fs.rmSync(tmp, { recursive: true, force: true }));

  it('is what openapi-python-client makes of clients/openapi.json (run npm run clients:python)', async () => {
    const fresh = await generatePythonClient();
    try {
      assert.deepEqual(differences(filesOf(fresh), filesOf(GENERATED)), [], 'stale files');
    } finally {
      fs.rmSync(path.dirname(fresh), { recursive: true, force: true });
    }
  });

  it('pip-installed into a fresh venv, submits a job once for one Idempotency-Key, follows its log and reads its end', async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'compute-py-client-'));
    // A copy: a build writes into its source folder.
    const source = path.join(tmp, 'source');
    fs.cpSync(path.join(ROOT, 'clients/python'), source, {
      recursive: true,
      filter: (f) => !f.includes('__pycache__'),
    });
    const venv = path.join(tmp, 'venv');
    await run('python3', ['-m', 'venv', venv]);
    await run(path.join(venv, 'bin/pip'), ['install', '--disable-pip-version-check', '-q', source]);
    fs.writeFileSync(path.join(tmp, 'main.py'), PROGRAM);

    const session = await login();
    const { key } = await createApiKey(testEnv().db, {
      workspaceId: session.user.workspaceId,
      name: 'py-client-agent',
      kind: 'agent',
    });
    await agents({ key });
    const { stdout } = await run(path.join(venv, 'bin/python'), [path.join(tmp, 'main.py')], {
      cwd: tmp,
      env: { PATH: process.env.PATH, API_URL: testEnv().url, TOKEN: session.token, KEY: `py-${Date.now()}` },
    });
    const out = JSON.parse(stdout);
    assert.equal(out.again, out.id, 'the repeated submit answers the same job');
    assert.deepEqual(out.lines, [
      ['stdout', 'hello'],
      ['stderr', 'world'],
    ]);
    assert.deepEqual([out.end.state, out.state, out.exitCode], ['SUCCEEDED', 'SUCCEEDED', 0]);
  });
});
