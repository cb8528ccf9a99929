import assert from 'node:assert/strict';
import { EmptyClaims } from '../../src/agents/empty-claims';

// When a renewed poll may skip its claim: only while nothing was notified on its queue since its
// node's last empty claim began, the node is as it was, the listener heard everything, and the
// claim is not older than the bound (a random share of it, between three quarters and all).
describe('empty claims (renewed polls of an idle node)', () => {
  const queue = 'compute_job_queued:ws_a';
  const claim = { queue, shape: '[{"gpu":"a100"},null]' };
  const row = { labels: { gpu: 'a100' } };

  function at(start = 1000, random = () => 0.999_999) {
    let now = start;
    const claims = new EmptyClaims(120_000, () => now, random);
    return { claims, tick: (ms: number) => (now += ms) };
  }

  it('skips a claim after an empty one with nothing queued since', () => {
    const { claims, tick } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    tick(30_000);
    assert.equal(claims.wouldFindNothing('node_1', claim), true);
    assert.equal(claims.wouldFindNothing('node_2', claim), false, 'a node that never claimed here claims');
  });

  it('claims again once its queue was notified, even during the empty claim itself', () => {
    const { claims, tick } = at();
    const began = claims.started();
    tick(5);
    claims.queued(queue); // committed while the claim ran: the claim may not have seen it
    claims.foundNothing('node_1', began, claim, row);
    tick(30_000);
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('is not fooled by another queue', () => {
    const { claims, tick } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    tick(10);
    claims.queued('compute_job_queued:ws_b');
    assert.equal(claims.wouldFindNothing('node_1', claim), true);
  });

  it('claims again when the node changed: its labels, its free room or its queue', () => {
    const { claims } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    assert.equal(claims.wouldFindNothing('node_1', { queue, shape: '[{"gpu":"h100"},null]' }), false);
    claims.foundNothing('node_1', claims.started(), claim, row);
    assert.equal(
      claims.wouldFindNothing('node_1', { queue: 'compute_managed_job_queued:eu', shape: claim.shape }),
      false,
    );
  });

  it('claims at least once per bound, for rows freed without a notification', () => {
    const { claims, tick } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    tick(119_999);
    assert.equal(claims.wouldFindNothing('node_1', claim), true);
    tick(1);
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('skips for a random share of the bound, so claims that fell together spread out', () => {
    let seed = 42;
    const lcg = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    const { claims, tick } = at(1000, lcg);
    const nodes = Array.from({ length: 1000 }, (_, i) => `node_${i}`);
    const began = claims.started();
    for (const n of nodes) claims.foundNothing(n, began, claim, row);
    const skipping = () => nodes.filter((n) => claims.idle(n, claim) !== undefined).length;
    tick(89_999);
    assert.equal(skipping(), 1000, 'none before three quarters of the bound');
    tick(15_000);
    const between = skipping();
    assert.ok(between > 400 && between < 600, `about half left at seven eighths: ${between}`);
    tick(15_001);
    assert.equal(skipping(), 0, 'none past the bound');
  });

  it('claims again after the listener reconnected (notifications may be lost)', () => {
    const { claims, tick } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    tick(10);
    claims.reset();
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('holds the node as its empty claim read it, until a notification names the node', () => {
    const { claims, tick } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    tick(10);
    assert.equal(claims.idle('node_1'), row, 'a renewal needs no read of its row');
    claims.nodeChanged('node_2');
    assert.equal(claims.idle('node_1'), row, 'another node changed');
    claims.nodeChanged('node_1'); // drained, removed, or room freed
    assert.equal(claims.idle('node_1'), undefined);
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('hears a node named while its empty claim ran', () => {
    const { claims, tick } = at();
    const began = claims.started();
    tick(5);
    claims.nodeChanged('node_1');
    claims.foundNothing('node_1', began, claim, row);
    assert.equal(claims.idle('node_1'), undefined);
  });

  it('claims again after the node took a job', () => {
    const { claims } = at();
    claims.foundNothing('node_1', claims.started(), claim, row);
    claims.forget('node_1');
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('never skips when the bound is 0', () => {
    let now = 0;
    const claims = new EmptyClaims(0, () => now);
    claims.foundNothing('node_1', claims.started(), claim, row);
    now += 1;
    assert.equal(claims.wouldFindNothing('node_1', claim), false);
  });

  it('forgets nodes that stopped polling, so a fleet that churns is not kept', () => {
    const { claims, tick } = at();
    for (let i = 0; i < 1500; i++) claims.foundNothing(`old_${i}`, claims.started(), claim, row);
    tick(200_000);
    for (let i = 0; i < 1100; i++) claims.foundNothing(`new_${i}`, claims.started(), claim, row);
    const held = (claims as unknown as { empty: Map<string, unknown> }).empty.size;
    assert.ok(held <= 1100 + 1024, `held ${held}`);
    assert.equal(claims.wouldFindNothing('new_1', claim), true);
  });
});
