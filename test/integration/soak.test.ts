// lane: alone
// temporal: server
import assert from 'node:assert/strict';
import { FAULT_KINDS } from '../soak/faults';
import { COUNT_NAMES, type SoakReport } from '../soak/report';
import { runSoak } from '../soak/run';
import { ALL_KINDS } from '../soak/workload';

// Two minutes of the fault soak (test/soak/run.ts) on a production-shaped stack of its own: every
// invariant holds, every kind of fault happened, and every kind of job was acknowledged and
// ended, so a soak that did nothing cannot pass.
describe('fault soak', function () {
  this.timeout(8 * 60_000);
  let report: SoakReport;

  before(async () => {
    report = await runSoak({ minutes: 2, say: (msg) => process.stderr.write(`      ${msg}\n`) });
    for (const line of report.lines) process.stderr.write(`      ${line}\n`);
  });

  it('breaks no invariant', () => {
    for (const name of COUNT_NAMES)
      assert.equal(report.counts[name], 0, `${name}:\n${report.lines.filter((l) => l.includes(name)).join('\n')}`);
  });

  it('ends no job in a way its kind never should (killed unasked, a timeout that succeeded)', () => {
    assert.deepEqual(report.unexpected, []);
  });

  it('inflicted every kind of fault', () => {
    for (const kind of FAULT_KINDS) assert.ok(report.faults.counts[kind] > 0, `no ${kind}`);
  });

  it('had jobs of every kind acknowledged and ended', () => {
    for (const kind of ALL_KINDS.filter((k) => report.managedAgent || k !== 'managed')) {
      const f = report.kinds[kind];
      assert.ok(f.acknowledged > 0 && f.ended > 0, `${kind}: ${JSON.stringify(f)}`);
    }
    // Those that end by design did so at least once each.
    // States are counted with their failureReason: `FAILED(exit_code)`, `TIMED_OUT(timeout)`.
    const ended = (kind: keyof SoakReport['kinds'], state: string) =>
      assert.ok(
        Object.keys(report.kinds[kind].states).some((s) => s === state || s.startsWith(`${state}(`)),
        `${kind}: ${JSON.stringify(report.kinds[kind])}`,
      );
    ended('timeout', 'TIMED_OUT(timeout)');
    ended('cancel', 'CANCELLED');
    ended('failing', 'FAILED(exit_code)');
    ended('long', 'SUCCEEDED');
    ended('artifact', 'SUCCEEDED');
  });
});
