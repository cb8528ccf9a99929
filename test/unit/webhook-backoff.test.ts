import assert from 'node:assert/strict';
import { loadWorkerConfig } from '../../src/config';
import { retryDelayMs, retrySchedule } from '../../src/webhooks/backoff';

// The production schedule, computed from the defaults the service runs with (CONTRACT §7: the first
// retry within 10 s, exponential with jitter, for at least 24 h). The real-stack tests run the
// same code with shortened durations.
describe('the webhook retry schedule', () => {
  // Outside production, where no secret keys are needed: the schedule is the defaults' alone.
  const settings = loadWorkerConfig({ NODE_ENV: 'test' }).webhooks;

  it('retries first within 10 s, even at the top of the jitter', () => {
    assert.ok(retryDelayMs(1, settings, () => 1) <= 10_000);
    assert.ok(retryDelayMs(1, settings, () => 0) > 0);
  });

  it('doubles up to its cap, spread by the jitter', () => {
    const mid = () => 0.5;
    const delays = Array.from({ length: 14 }, (_, i) => retryDelayMs(i + 1, settings, mid));
    for (let i = 1; i < delays.length; i++)
      assert.ok(
        delays[i] === Math.min(2 * delays[i - 1], settings.maxRetryDelayMs),
        `delay ${i + 1}: ${delays.join(', ')}`,
      );
    assert.equal(delays[delays.length - 1], settings.maxRetryDelayMs);
    const spread = new Set(Array.from({ length: 50 }, () => retryDelayMs(3, settings)));
    assert.ok(spread.size > 10, 'jittered');
    for (const d of spread) assert.ok(d >= 0.75 * 20_000 && d <= 1.25 * 20_000, String(d));
  });

  it('keeps retrying for at least 24 h, whatever the jitter draws', () => {
    for (const draw of [() => 0, () => 1, Math.random]) {
      const at = retrySchedule(settings, draw);
      const last = at[at.length - 1];
      assert.ok(last >= 24 * 3600_000, `last attempt at ${last / 3600_000} h`);
      assert.ok(at[at.length - 2] < 24 * 3600_000, 'and stops once past it');
      assert.ok(at.length < 60, `${at.length} attempts`);
    }
  });
});
