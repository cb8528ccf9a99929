import assert from 'node:assert/strict';
import { WorkflowUpdateRPCTimeoutOrCancelledError } from '@temporalio/client';
import { translateError } from '../../src/temporal/grpc-errors';
import { AppError } from '../../src/shared/errors';

// What Temporal's client throws, in the service's terms (src/temporal/grpc-errors.ts). The fault
// soak met an Update whose call ran out of its deadline while the server restarted: the SDK's own
// error, not a ServiceError, which was answered 500 instead of 503.
describe('Temporal errors (no server): what the caller is answered', () => {
  const unavailable = (cause?: unknown) =>
    new AppError('dependency.unavailable', 'The workflow service is unavailable', { cause: String(cause) }, 2);

  it('an Update call past its deadline is 503 dependency.unavailable, not internal', () => {
    const deadline = Object.assign(
      new Error('4 DEADLINE_EXCEEDED: Deadline exceeded after 4.019s,remote_addr=127.0.0.1:1'),
      {
        code: 4,
      },
    );
    const err = new WorkflowUpdateRPCTimeoutOrCancelledError('Deadline exceeded after 4.019s', { cause: deadline });
    assert.throws(
      () => translateError(err, unavailable, () => undefined),
      (thrown: unknown) => thrown instanceof AppError && thrown.code === 'dependency.unavailable',
    );
  });

  it("leaves an error that is not Temporal's as it is", () => {
    const ours = new TypeError('x is undefined');
    assert.throws(
      () => translateError(ours, unavailable, () => undefined),
      (thrown: unknown) => thrown === ours,
    );
  });
});
