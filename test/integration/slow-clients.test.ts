import assert from 'node:assert/strict';
import net from 'node:net';
import { type ServiceProcess, startServiceProcess } from '../../src/runtime/service-process';
import { createObjectStore } from '../../src/artifacts/object-store';
import { waitFor } from '../support/agents';
import { send } from '../support/artifacts';
import { quietLog, testEnv } from '../support/env';
import { heartbeatInBackground, heldJob, newWorkspace } from '../support/http';

const TIMEOUT_MS = 1000;
const MiB = 1024 * 1024;
const IDLE_MS = 1500;
// Our own deadline timers fire on time; Node checks the headers deadline once a second.
const SLACK_MS = 2500;

interface RawOutcome {
  /** What the server wrote before it closed the connection. */
  text: string;
  closedAfterMs: number;
  /** Ms from the start until the first byte of an answer arrived, if any did. */
  answeredAfterMs?: number;
}

/**
 * Writes `head` to the API over a raw socket and then nothing more; resolves when the server
 * closes. `seen` receives what the server writes as it arrives.
 */
function stall(
  url: string,
  head: string,
  more?: (socket: net.Socket) => void,
  seen?: (text: string) => void,
): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let text = '';
    let answeredAfterMs: number | undefined;
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      more?.(socket);
    });
    socket.on('data', (d) => {
      answeredAfterMs ??= Date.now() - started;
      text += d.toString();
      seen?.(text);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started, answeredAfterMs }));
    setTimeout(() => reject(new Error(`the server kept the connection for 30 s; it wrote: ${text}`)), 30_000).unref();
  });
}

const postHead = (path: string, headers: Record<string, string | number>) =>
  `POST ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;

describe('slow and idle clients cannot hold the server', () => {
  let api: ServiceProcess;
  before(async () => {
    const config = testEnv().configWith({
      HTTP_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS),
      HTTP_HEADERS_TIMEOUT_MS: String(TIMEOUT_MS),
      UPLOAD_IDLE_TIMEOUT_MS: String(IDLE_MS),
      ARTIFACT_UPLOADS_MAX: '1',
    });
    api = await startServiceProcess({ config, log: quietLog, api: true, worker: false });
  });
  after(() => api?.stop());

  it('closes a request that declares Content-Length: 1000000 and sends nothing, within the request timeout', async () => {
    const { key } = await newWorkspace();
    const out = await stall(
      api.url!,
      postHead('/api/compute/jobs/submit', {
        'Content-Type': 'application/json',
        'Content-Length': 1_000_000,
        'X-API-Key': key,
      }),
    );
    assert.ok(
      out.closedAfterMs >= TIMEOUT_MS - 50 && out.closedAfterMs < TIMEOUT_MS + SLACK_MS,
      `closed after ${out.closedAfterMs} ms`,
    );
    assert.match(out.text, /^HTTP\/1\.1 408 /);
    assert.match(out.text, /"code":"request.invalid"/);
  });

  it('authenticates before reading a body: a bad credential is refused at once, and the unsent body is not waited for', async () => {
    const out = await stall(
      api.url!,
      postHead('/api/compute/jobs/submit', {
        'Content-Type': 'application/json',
        'Content-Length': 1_000_000,
        'X-API-Key': 'cku_nonsense',
      }),
    );
    assert.match(out.text, /^HTTP\/1\.1 401 /);
    assert.ok(out.answeredAfterMs! < TIMEOUT_MS, `answered after ${out.answeredAfterMs} ms, not after the body`);
    assert.ok(out.closedAfterMs < TIMEOUT_MS + SLACK_MS, `closed after ${out.closedAfterMs} ms`);
  });

  it('closes a connection whose headers never end, within the headers timeout', async () => {
    const out = await stall(api.url!, 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    assert.ok(out.closedAfterMs < TIMEOUT_MS + SLACK_MS, `closed after ${out.closedAfterMs} ms`);
  });

  it('cuts an upload that stops sending, frees its slot, and keeps nothing of it', async () => {
    const { job, workspaceId, node } = await heldJob();
    // The agent heartbeats through the upload, as a real one does: 2.5 s of silence here would
    // requeue the job, and the last upload would be refused for a lease that no longer holds it.
    const beat = heartbeatInBackground(node, [job.job_id]);
    try {
      const url = (id: string) =>
        testEnv()
          .service.services!.artifacts.uploadTemplate(api.url!, { id: job.job_id, timeoutSeconds: 3600 }, job.leaseId)
          .replace('{id}', id);
      const target = new URL(url('stalled'));
      // 64 KiB of a declared 20 MiB, then silence: the only upload slot stays taken until the idle timeout.
      const startStall = () => {
        const attempt = { outcome: Promise.resolve({} as RawOutcome), turnedAway: false };
        const head = `PUT ${target.pathname}${target.search} HTTP/1.1\r\nHost: x\r\nContent-Length: ${20 * MiB}\r\n\r\n`;
        attempt.outcome = stall(
          api.url!,
          head,
          (sock) => sock.write(Buffer.alloc(64 * 1024, 1)),
          (text) => (attempt.turnedAway = text.startsWith('HTTP/1.1 429')),
        );
        return attempt;
      };
      let stalled = startStall();
      // Small uploads pass until the stalled one holds the slot; from then on they are turned away.
      // Should a probe have held the slot when the stalled upload arrived, that one was turned away: again.
      await waitFor('the stalled upload to hold the slot', async () => {
        if (stalled.turnedAway) stalled = startStall();
        return (await send('PUT', url('probe'), { body: Buffer.from('x') })).status === 429;
      });
      const out = await stalled.outcome;
      assert.equal(out.text, '', 'a cut upload gets no answer: its connection is closed');
      assert.ok(out.closedAfterMs < IDLE_MS + SLACK_MS, `closed after ${out.closedAfterMs} ms`);
      const after = await send('PUT', url('second'), { body: Buffer.from('x') });
      assert.equal(after.status, 200, after.body.toString());
      const { objects } = await createObjectStore(testEnv().config)!.keys(`${workspaceId}/${job.job_id}/`);
      assert.equal(objects.filter((k) => k.includes('/stalled/')).length, 0, 'nothing of the stalled upload is kept');
      assert.equal(objects.filter((k) => k.includes('/second/')).length, 1);
    } finally {
      await beat.stop();
    }
  });
});
