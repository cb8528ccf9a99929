import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '../..');

describe('runUntilSignal', () => {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    it(`stops on a ${signal} that arrived just before it took over from a library's listener`, async function () {
      this.timeout(30_000);
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', 'test/fixtures/signals/early-signal.ts', signal],
        { cwd: ROOT },
      );
      assert.equal(stdout, 'stopped\n');
    });
  }
});
