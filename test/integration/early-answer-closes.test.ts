// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import net from 'node:net';
import type { ManagedChild } from '../../src/stack/child';
import { freePort } from '../../src/stack/ports';
import { waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { newWorkspace, ok } from '../support/http';

// The suite's API has the default 30 s request deadline; this API has a short one, and its own
// count of refused credentials (200 refusals from one address would otherwise turn into 429s).
const DEADLINE_MS = 8000;
// Generous: hundreds of sockets on a 2-core machine that may be running other suites.
const SLACK_MS = 7000;
const TRICKLE_MS = 250;

interface Held {
  what: string;
  socket: net.Socket;
  text: string;
  answeredAfterMs?: number;
  /** When the server's FIN arrived: it ended the connection. */
  endedAfterMs?: number;
  closedAfterMs?: number;
}

/**
 * Sends `head` and one byte of the body it declares, then one more byte every TRICKLE_MS, and
 * never closes its side: the connection ends only if the server ends it. A write after the server
 * let go of its socket is answered with a reset, which closes ours.
 */
function hold(port: number, what: string, head: string, held: Held[]): Held {
  const started = Date.now();
  let trickle: NodeJS.Timeout | undefined;
  const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true }, () => {
    socket.write(`${head}x`);
    trickle = setInterval(() => socket.writable && socket.write('x'), TRICKLE_MS);
  });
  const h: Held = { what, socket, text: '' };
  socket.on('data', (d) => {
    h.answeredAfterMs ??= Date.now() - started;
    h.text += d.toString();
  });
  socket.on('end', () => (h.endedAfterMs = Date.now() - started));
  socket.on('error', () => undefined);
  socket.on('close', () => {
    clearInterval(trickle);
    h.closedAfterMs = Date.now() - started;
  });
  held.push(h);
  return h;
}

const head = (method: string, path: string, headers: Record<string, string | number> = {}) =>
  `${method} ${path} HTTP/1.1\r\nHost: x\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
const declared = { 'Content-Type': 'application/json', 'Content-Length': 1_000_000 };
const answerHead = (h: Held) => h.text.split('\r\n\r\n')[0];

describe('an answer given before the body arrived closes the connection', () => {
  let api: ManagedChild;
  let port: number;
  let held: Held[] = [];
  before(async function () {
    this.timeout(120_000);
    port = await freePort();
    api = await spawnApi(port, { HTTP_REQUEST_TIMEOUT_MS: String(DEADLINE_MS), AUTH_FAILURES_PER_MINUTE: '100000' });
  });
  afterEach(() => {
    for (const h of held) h.socket.destroy();
    held = [];
  });
  after(() => api?.stop());

  it('refuses 200 clients that declare a megabyte and send it a byte at a time, and lets go of each socket within the deadline', async function () {
    this.timeout(DEADLINE_MS + SLACK_MS + 30_000);
    const { key } = await newWorkspace();
    for (let i = 0; i < 200; i++) {
      if (i % 4 === 3) hold(port, 'POST /v0/jobs', head('POST', '/v0/jobs', declared), held);
      else hold(port, 'POST /api/compute/jobs/submit', head('POST', '/api/compute/jobs/submit', declared), held);
    }
    // Uploads are exempt from the deadline (they have an idle timeout once their URL is verified):
    // one with a forged signature, and a path under the upload prefix that is no upload route.
    const uploads = [
      hold(
        port,
        'PUT forged upload',
        head('PUT', '/api/compute/artifacts/upload/j1/a1?expires=9999999999&sig=forged', {
          'Content-Length': 20_000_000,
        }),
        held,
      ),
      hold(
        port,
        'PUT under the upload prefix',
        head('PUT', '/api/compute/artifacts/upload/nowhere', { 'Content-Length': 20_000_000 }),
        held,
      ),
    ];

    const listed = await ok('/compute/jobs/list', {}, key, `http://127.0.0.1:${port}`);
    assert.ok(Array.isArray(listed.jobs), 'the API answers a normal request while they are connected');

    await waitFor(
      'every socket to be closed',
      () => held.every((h) => h.closedAfterMs !== undefined),
      DEADLINE_MS + SLACK_MS,
    ).catch(() => undefined);
    const open = held.filter((h) => h.closedAfterMs === undefined);
    assert.deepEqual(
      open.map((h) => `${h.what}: ${answerHead(h).split('\r\n')[0] || 'no answer'}`),
      [],
      `still open ${DEADLINE_MS + SLACK_MS} ms after they connected`,
    );
    for (const h of held) {
      const answer = answerHead(h);
      assert.match(answer, uploads.includes(h) ? /^HTTP\/1\.1 4\d\d / : /^HTTP\/1\.1 401 /, `${h.what}: ${answer}`);
      assert.match(answer, /\r\nConnection: close(\r\n|$)/i, `${h.what}: ${answer}`);
      // The server ends the connection with its answer, not at the deadline.
      assert.ok(
        h.endedAfterMs !== undefined && h.endedAfterMs - h.answeredAfterMs! < DEADLINE_MS / 2,
        `${h.what}: answered after ${h.answeredAfterMs} ms, ended after ${h.endedAfterMs} ms`,
      );
      assert.ok(h.closedAfterMs! < DEADLINE_MS + SLACK_MS, `${h.what}: closed after ${h.closedAfterMs} ms`);
    }
  });

  it('keeps the connection of a request whose body was read', async () => {
    const { key } = await newWorkspace();
    const socket = net.connect(port, '127.0.0.1');
    held.push({ what: 'keep-alive', socket, text: '' });
    let text = '';
    socket.on('data', (d) => (text += d.toString()));
    socket.on('error', () => undefined);
    socket.write(
      `${head('POST', '/api/compute/jobs/list', { 'Content-Type': 'application/json', 'Content-Length': 2, 'X-API-Key': key })}{}`,
    );
    await waitFor('the answer', () => /\r\n\r\n\{.*\}$/s.test(text));
    assert.match(text, /^HTTP\/1\.1 200 /);
    assert.match(text, /\r\nConnection: keep-alive\r\n/i);
    socket.write(head('GET', '/healthz'));
    await waitFor('a second answer on the same connection', () => /HTTP\/1\.1 200 [^]*HTTP\/1\.1 200 /.test(text));
  });
});
