import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { Payload, SerializationContext } from '@temporalio/common';
import type { DataKeys } from '../../src/crypto/data-keys';
import { newId } from '../../src/shared/ids';
import { createPayloadCodec } from '../../src/temporal/payload-codec';
import { META_FORMAT, META_SCOPE, META_WORKFLOW } from '../../src/temporal/payload-format';
import { legacySealed, relabelled, unlabelled } from '../support/sealed-payloads';

// What a sealed payload is bound to: its workspace and its run, both in the authenticated data,
// so no label of it can be changed and still open; payloads of the format before keep opening.
describe('payload binding', () => {
  const ws = { a: newId('ws'), b: newId('ws') };
  const keys = new Map([ws.a, ws.b].map((w) => [w, randomBytes(32)] as const));
  const dataKeys: DataKeys = { currentKeyId: 'test', of: async (w) => keys.get(w)!, rewrap: async () => 0 };
  const runs = { a1: newId('job'), a2: newId('job'), b1: newId('job') };
  const workspaceOf = async (id: string) =>
    id === runs.b1 ? ws.b : id === runs.a1 || id === runs.a2 ? ws.a : undefined;
  const codec = createPayloadCodec({ dataKeys, operatorKeys: [randomBytes(32)], workspaceOf });
  const of = (workflowId: string): SerializationContext => ({ type: 'workflow', namespace: 'default', workflowId });
  const clear: Payload = { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('"secret"') };
  const text = (p: Payload) => Buffer.from(p.data!).toString();

  it('binds a payload to its workspace and run: relabelled to another run, another workspace or no run, it does not open', async () => {
    const [sealed] = await codec.encode([clear], of(runs.a1));
    const opened = await codec.tryOpen(sealed);
    assert.deepEqual(opened?.sealedFor, { scope: ws.a, workflowId: runs.a1 });
    assert.equal(text(opened!.payload), '"secret"');
    for (const [what, forged] of [
      ['another run of its workspace', relabelled(sealed, META_WORKFLOW, runs.a2)],
      ['another workspace', relabelled(sealed, META_SCOPE, ws.b)],
      ['no run', unlabelled(sealed, META_WORKFLOW)],
      ['the format before (workspace only)', unlabelled(sealed, META_FORMAT)],
    ] as const) {
      assert.equal(await codec.tryOpen(forged), undefined, `relabelled to ${what}`);
    }
    await assert.rejects(
      codec.decode([relabelled(sealed, META_WORKFLOW, runs.a2)], of(runs.a2)),
      /does not open/,
      "the relabelled run's worker refuses it",
    );
  });

  it("a job's run refuses a payload sealed for another run of its workspace; takes its own, in a workflow's or an activity's context", async () => {
    const [sealed] = await codec.encode([clear], of(runs.a1));
    await assert.rejects(
      codec.decode([sealed], of(runs.a2)),
      new RegExp(`sealed for run ${runs.a1} reached run ${runs.a2}`),
    );
    await assert.rejects(codec.decode([sealed], of(runs.b1)), /reached a run of/);
    assert.equal(text((await codec.decode([sealed], of(runs.a1)))[0]), '"secret"');
    const activity: SerializationContext = {
      type: 'activity',
      namespace: 'default',
      workflowId: runs.a1,
      activityId: '1',
      isLocal: false,
    };
    const [fromActivity] = await codec.encode([clear], activity);
    assert.equal(text((await codec.decode([fromActivity], activity))[0]), '"secret"');
    assert.equal(
      text((await codec.decode([fromActivity], of(runs.a1)))[0]),
      '"secret"',
      'an activity of the run seals for the run',
    );
  });

  it("opens a payload bound to its own run without looking the run's workspace up; any other payload looks it up", async () => {
    const looked: string[] = [];
    const learnt: string[][] = [];
    const counting = createPayloadCodec({
      dataKeys,
      operatorKeys: [randomBytes(32)],
      workspaceOf: async (id) => (looked.push(id), workspaceOf(id)),
      learn: (run, workspace) => learnt.push([run, workspace]),
    });
    const [bound] = await codec.encode([clear], of(runs.a1));
    assert.equal(text((await counting.decode([bound], of(runs.a1)))[0]), '"secret"');
    assert.deepEqual(looked, [], 'bound to this run: its workspace was authenticated when sealed');
    assert.deepEqual(learnt, [[runs.a1, ws.a]], 'and the codec learns it for sealing the run');
    const [unbound] = await codec.encodeFor(ws.a, [clear]);
    assert.equal(text((await counting.decode([unbound, unbound], of(runs.a2)))[0]), '"secret"');
    assert.deepEqual(looked, [runs.a2], 'bound to no run: the run is looked up, once per call');
    assert.equal(learnt.length, 1, 'nothing learnt from a payload bound to no run');
    await assert.rejects(counting.decode([unbound], of(runs.b1)), /reached a run of/);
  });

  it("a run that is no job's (a schedule's, its ID the schedule's with the time appended) takes what was sealed for the schedule", async () => {
    const [forSchedule] = await codec.encode([clear], of('meter'));
    assert.equal(text((await codec.decode([forSchedule], of('meter-2026-11-28T00:00:00Z')))[0]), '"secret"');
  });

  it('binds what is sealed outside a run to no run: it opens in any run of its scope, and says so', async () => {
    const [forWorkspace] = await codec.encodeFor(ws.a, [clear]);
    assert.equal(forWorkspace.metadata![META_WORKFLOW], undefined);
    assert.deepEqual((await codec.tryOpen(forWorkspace))?.sealedFor, { scope: ws.a });
    assert.equal(text((await codec.decode([forWorkspace], of(runs.a2)))[0]), '"secret"');
    assert.equal(
      await codec.tryOpen(relabelled(forWorkspace, META_WORKFLOW, runs.a1)),
      undefined,
      'a run label added, it does not open',
    );
    const [system] = await codec.encode([clear]);
    assert.deepEqual((await codec.tryOpen(system))?.sealedFor, { scope: 'system' });
  });

  it('opens a payload of the format before (workspace only), its run label unverified', async () => {
    const old = legacySealed(keys.get(ws.a)!, ws.a, runs.a1, clear);
    const opened = await codec.tryOpen(old);
    assert.deepEqual(opened?.sealedFor, { scope: ws.a }, 'bound to its workspace, to no run');
    assert.equal(text(opened!.payload), '"secret"');
    assert.equal(text((await codec.decode([old], of(runs.a1)))[0]), '"secret"', "its run's worker opens it");
    assert.deepEqual(
      (await codec.tryOpen(relabelled(old, META_WORKFLOW, runs.a2)))?.sealedFor,
      { scope: ws.a },
      'its run label was never authenticated, and is not reported',
    );
    assert.equal(
      await codec.tryOpen(relabelled(old, META_SCOPE, ws.b)),
      undefined,
      'moved to another workspace, it does not open',
    );
    assert.equal(
      await codec.tryOpen(relabelled(old, META_FORMAT, '2')),
      undefined,
      'marked as format 2, it does not open',
    );
  });
});
