import assert from 'node:assert/strict';
import { type HandedLease, HandedLeases } from '../../src/agents/handed-leases';

const node = { id: 'agent_a', workspace_id: 'ws_a', pool: 'self', region: null, capacity: null };
const lease = (jobId: string): HandedLease => ({ jobId, jobWorkspaceId: 'ws_a', node });
const report = (jobId: string, nodeId = 'agent_a') => ({ jobId, nodeId });

describe('the leases an instance handed out', () => {
  it("answers a report naming the lease's job and node, in its workspace, once", () => {
    const leases = new HandedLeases(10);
    leases.remember('lease_1', lease('job_1'));
    assert.deepEqual(leases.take('lease_1', report('job_1'), 'ws_a'), lease('job_1'));
    assert.equal(leases.take('lease_1', report('job_1'), 'ws_a'), undefined, 'a repeated report is read');
  });

  it('answers nothing for a report naming another job, another node or another workspace, and forgets the lease', () => {
    for (const [r, workspaceId] of [
      [report('job_2'), 'ws_a'],
      [report('job_1', 'agent_b'), 'ws_a'],
      [report('job_1'), 'ws_b'],
    ] as const) {
      const leases = new HandedLeases(10);
      leases.remember('lease_1', lease('job_1'));
      assert.equal(leases.take('lease_1', r, workspaceId), undefined, JSON.stringify([r, workspaceId]));
      assert.equal(leases.take('lease_1', report('job_1'), 'ws_a'), undefined, 'what did not match goes to the read');
    }
  });

  it('keeps at most its bound, the oldest going first', () => {
    const leases = new HandedLeases(3);
    for (let i = 1; i <= 5; i++) leases.remember(`lease_${i}`, lease(`job_${i}`));
    assert.equal(leases.size, 3);
    assert.equal(leases.take('lease_2', report('job_2'), 'ws_a'), undefined);
    assert.deepEqual(leases.take('lease_3', report('job_3'), 'ws_a'), lease('job_3'));
    assert.deepEqual(leases.take('lease_5', report('job_5'), 'ws_a'), lease('job_5'));
  });
});
