import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { DeterminismViolationError } from '@temporalio/workflow';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { silentSdkLogger, testEnv } from '../support/env';

// Histories recorded from earlier versions of the job workflow (`npm run record:histories`):
// today's code must make the same decisions from them, or open runs would break on deploy.
const DIR = path.resolve(__dirname, '../fixtures/histories');
const histories = fs
  .readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f.replace(/\.json$/, ''), history: historyFromJSON(JSON.parse(fs.readFileSync(path.join(DIR, f), 'utf8'))) }));

describe('job workflow replay', () => {
  it('has recorded histories to replay', () => {
    assert.ok(histories.length >= 4, `found ${histories.length}`);
  });

  for (const { name, history } of histories) {
    it(`replays the recorded "${name}" history deterministically`, async () => {
      await Worker.runReplayHistory({ workflowBundle: testEnv().bundle, replayName: name }, history);
    });
  }

  it('catches a change that would break those histories', async () => {
    const altered = await bundleWorkflowCode({
      workflowsPath: require.resolve('../fixtures/altered-workflow'),
      logger: silentSdkLogger,
    });
    await assert.rejects(
      Worker.runReplayHistory({ workflowBundle: altered, replayName: 'altered' }, histories[0].history),
      DeterminismViolationError,
    );
  });
});
