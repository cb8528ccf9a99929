import assert from 'node:assert/strict';
import { login } from '../support/auth';
import { v0ok } from '../support/v0';
import { WebhookReceiver } from '../support/webhook-receiver';

const JOBS = 200;
const AT_ONCE = 8;

// 200 jobs, each submitted and cancelled (three events), with two endpoints: every event reaches
// both, each job's in order. 400 lanes, eight jobs made at once, deliveries interleaving with the
// submits: enough to break an order or lose an event; the volume and its rate are the bench's
// business (npm run bench:webhooks, 300 jobs a round and every delivery counted).
describe('webhooks at volume', () => {
  const receivers = [new WebhookReceiver(), new WebhookReceiver()];
  before(async () => {
    for (const rx of receivers) await rx.start();
  });
  after(async () => {
    for (const rx of receivers) await rx.stop();
  });

  it(`delivers every event of ${JOBS} jobs to two endpoints, in order per job`, async function () {
    this.timeout(600_000);
    const s = await login();
    for (const rx of receivers) await v0ok('POST', '/webhooks', { token: s.token, body: { url: rx.url } });
    const started = Date.now();
    const jobs: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < JOBS) {
          next++;
          const job = await v0ok('POST', '/jobs', {
            token: s.token,
            body: { type: 'COMMAND', command: 'true', selector: { pool: 'nobody' } },
          });
          jobs.push(job.id);
          await v0ok('POST', `/jobs/${job.id}:cancel`, { token: s.token, status: 200 });
        }
      }),
    );
    const submitted = Date.now();
    for (const rx of receivers) await rx.waitFor((all) => all.length >= JOBS * 3, 480_000, `${JOBS * 3} deliveries`);
    const done = Date.now();
    for (const rx of receivers) {
      const byJob = new Map<string, string[]>();
      for (const r of rx.received)
        byJob.set(r.event.data.job.id, [...(byJob.get(r.event.data.job.id) ?? []), r.event.type]);
      assert.equal(byJob.size, JOBS);
      for (const id of jobs) assert.deepEqual(byJob.get(id), ['job.created', 'job.transitioned', 'job.terminal'], id);
      assert.equal(new Set(rx.received.map((r) => r.event.id)).size, JOBS * 3, 'each event once');
    }
    process.stderr.write(
      `      ${JOBS} jobs submitted and cancelled in ${((submitted - started) / 1000).toFixed(1)} s; ${JOBS * 6} deliveries done ` +
        `${((done - submitted) / 1000).toFixed(1)} s after the last cancel (${((JOBS * 6 * 1000) / (done - started)).toFixed(0)}/s over the whole run)\n`,
    );
  });
});
