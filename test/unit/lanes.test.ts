import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { laneOf, temporalsOf } from '../lanes';

// The suite's lanes follow the folders and a file's own tag (test/lanes.ts), never a hand list.

const ROOT = path.resolve(__dirname, '../..');

describe('test lanes', () => {
  it('come from the folder, then the first line of the file', () => {
    assert.equal(laneOf('test/unit/turns.test.ts', ''), 'unit');
    assert.equal(laneOf('test/integration/x.test.ts', "import assert from 'node:assert/strict';\n"), 'shared');
    assert.equal(laneOf('test/browser/x.test.ts', '// lane: isolated (test/lanes.ts)\nimport …'), 'isolated');
    assert.throws(
      () => laneOf('test/e2e/x.test.ts', '// lane: fast\n'),
      /the tags are "\/\/ lane: isolated" and "\/\/ lane: alone"/,
    );
    assert.throws(() => laneOf('test/x.test.ts', ''), /is in no test folder/);
  });

  it('run a file on the dev server unless its tag names the Temporal server too, or alone', () => {
    assert.deepEqual(temporalsOf('test/integration/x.test.ts', "import assert from 'node:assert/strict';\n"), ['dev']);
    assert.deepEqual(temporalsOf('x', '// lane: isolated (test/lanes.ts)\n// temporal: dev, server\nimport …'), [
      'dev',
      'server',
    ]);
    assert.deepEqual(temporalsOf('x', '// temporal: server\n'), ['server']);
    assert.throws(() => temporalsOf('x', '// temporal: dev, cloud\n'), /the servers are dev and server/);
  });

  it('place every test file of the tree, each unit test in a folder that starts no service', () => {
    const files = (fs.readdirSync(path.join(ROOT, 'test'), { recursive: true }) as string[])
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => path.join('test', f));
    const lanes = files.map((f) => laneOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8').slice(0, 200)));
    assert.ok(
      lanes.filter((l) => l === 'unit').length > 10 &&
        lanes.filter((l) => l === 'isolated').length > 10 &&
        lanes.filter((l) => l === 'shared').length > 10,
      lanes.join(' '),
    );
    // The files that prove what only a real cluster shows run on the Temporal server too.
    const onServer = files.filter((f) =>
      temporalsOf(f, fs.readFileSync(path.join(ROOT, f), 'utf8').slice(0, 300)).includes('server'),
    );
    for (const f of ['multi-instance', 'worker-crash', 'temporal-ui-actions', 'webhooks', 'webhook-crashes'])
      assert.ok(onServer.includes(`test/integration/${f}.test.ts`), f);
    // The unit lane's files never reach the stack's test environment.
    for (const f of files.filter((f) => f.startsWith('test/unit/')))
      assert.doesNotMatch(fs.readFileSync(path.join(ROOT, f), 'utf8'), /support\/env'/, f);
  });
});
