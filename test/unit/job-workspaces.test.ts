import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { newId } from '../../src/shared/ids';
import { jobWorkspaces } from '../../src/temporal/payload-codec';

// The codec's map from a run to its job's workspace: a job its submit told it of is sealed for
// without a read; any other is read once, then remembered.
describe('job workspaces (the codec cache)', () => {
  function recordingDb(rows: Record<string, string>) {
    const reads: string[] = [];
    const db = (() => ({
      where: ({ id }: { id: string }) => ({
        first: async () => {
          reads.push(id);
          return rows[id] ? { workspace_id: rows[id] } : undefined;
        },
      }),
    })) as unknown as Knex;
    return { db, reads };
  }

  it('answers a job its submit made known without reading the database', async () => {
    const { db, reads } = recordingDb({});
    const workspaces = jobWorkspaces(db);
    const job = newId('job');
    workspaces.know(job, 'ws_a');
    assert.equal(await workspaces.of(job), 'ws_a');
    assert.equal(await workspaces.of(`webhook-${job}-lane`), 'ws_a', 'a lane of the job');
    assert.deepEqual(reads, []);
  });

  it('reads any other job once, and a run that names no job not at all', async () => {
    const job = newId('job');
    const { db, reads } = recordingDb({ [job]: 'ws_b' });
    const workspaces = jobWorkspaces(db);
    assert.equal(await workspaces.of(job), 'ws_b');
    assert.equal(await workspaces.of(job), 'ws_b');
    assert.equal(await workspaces.of('meter'), undefined);
    assert.deepEqual(reads, [job]);
  });

  it('forgets the oldest entry past its bound', async () => {
    const { db, reads } = recordingDb({});
    const workspaces = jobWorkspaces(db, 2);
    const [j1, j2, j3] = [newId('job'), newId('job'), newId('job')];
    workspaces.know(j1, 'ws');
    workspaces.know(j2, 'ws');
    workspaces.know(j3, 'ws');
    assert.equal(await workspaces.of(j3), 'ws');
    assert.equal(await workspaces.of(j1), undefined, 'read again, and no row');
    assert.deepEqual(reads, [j1]);
  });
});
