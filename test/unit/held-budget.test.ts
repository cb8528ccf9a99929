import assert from 'node:assert/strict';
import { heldBudget } from '../../src/db/held-transaction';

describe('the budget of transactions held across Temporal calls', () => {
  it('gives out half the pool, takes each back once, and none for a pool of one', () => {
    const budget = heldBudget(5);
    const first = budget.take();
    const second = budget.take();
    assert.ok(first && second);
    assert.equal(budget.take(), undefined, 'half of five is two');
    first();
    first();
    const third = budget.take();
    assert.ok(third, 'a release frees one place');
    assert.equal(budget.take(), undefined, 'a second release of the same is a no-op');
    assert.equal(heldBudget(1).take(), undefined);
  });
});
