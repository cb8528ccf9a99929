import assert from 'node:assert/strict';
import * as otel from '@opentelemetry/api';
import { contextOf, traceIdOf, traceparentOf } from '../../src/telemetry/tracing';

// The W3C trace context a job's row keeps and its parts pass on (docs/guides/tracing.md).
describe('a job’s trace context', () => {
  const sampled = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
  const unsampled = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00';

  it('names the trace only when it was recorded', () => {
    assert.equal(traceIdOf(sampled), '0af7651916cd43dd8448eb211c80319c');
    assert.equal(traceIdOf(unsampled), null, 'a job its submit did not sample has no trace to find');
    assert.equal(traceIdOf(null), null);
    assert.equal(traceIdOf('garbage'), null);
  });

  it('reads a traceparent as a remote parent, and anything else as no parent', () => {
    const parent = otel.trace.getSpanContext(contextOf(sampled));
    assert.deepEqual(
      [parent?.traceId, parent?.spanId, parent?.traceFlags, parent?.isRemote],
      ['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 1, true],
    );
    for (const bad of [null, '', 'not-a-traceparent', '00-00000000000000000000000000000000-b7ad6b7169203331-01'])
      assert.equal(otel.trace.getSpanContext(contextOf(bad)), undefined, String(bad));
  });

  it('writes nothing while this process does not trace', () => {
    assert.equal(traceparentOf(contextOf(sampled)), undefined);
  });
});
