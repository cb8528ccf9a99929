import assert from 'node:assert/strict';
import { isDatabaseUnavailable } from '../../src/shared/dependency-errors';

// What PostgreSQL's outages look like through knex and pg: each is a 503 with Retry-After, never
// a 500. The fault soak met the last one (a heartbeat's transaction, its connection cut mid-way).
describe('isDatabaseUnavailable', () => {
  it('knows a refused connection, a terminated one, a server shutting down and a broken pooled client', () => {
    const coded = (message: string, code: string) => Object.assign(new Error(message), { code });
    for (const err of [
      coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
      new Error('Connection terminated unexpectedly'),
      coded('terminating connection due to administrator command', '57P01'),
      new Error('ROLLBACK - Client has encountered a connection error and is not queryable'),
    ])
      assert.ok(isDatabaseUnavailable(err), err.message);
  });

  it('leaves errors of ours alone', () => {
    assert.equal(isDatabaseUnavailable(new Error('relation "jobs" does not exist')), false);
    assert.equal(isDatabaseUnavailable(new TypeError('x is undefined')), false);
  });
});
