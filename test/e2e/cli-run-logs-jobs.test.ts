// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { type AgentProcess, spawnAgent, waitFor } from '../support/agents';
import { type RunningCli, cliConfigDir, compute, startCompute, startComputeInTerminal } from '../support/cli';
import { testEnv } from '../support/env';
import { heartbeatInBackground, newWorkspace, ok, pollOne, registerNode, retrieve, submit } from '../support/http';

// The promises of docs/guides/agents-and-cli.md about `npx compute`, each on the real
// stack. Already proven elsewhere: a job's own exit code (3) comes back from `compute run`
// (agent.test.ts, "runs `compute run` end to end").

/** A manifest file of its own. */
function manifest(body: Record<string, unknown>): string {
  const file = path.join(cliConfigDir(), 'job.json');
  fs.writeFileSync(file, JSON.stringify({ type: 'COMMAND', ...body }));
  return file;
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

/** Commands a test started in the background, killed after each test should it fail half-way. */
const running: RunningCli[] = [];
const background = (r: RunningCli) => (running.push(r), r);
/** Registers, in the calling suite only, the cleanup of what `background` started. */
const killLeftovers = () =>
  afterEach(() => {
    for (const r of running.splice(0)) r.kill();
  });

/** The one job of the workspace carrying `labels`, once its submit has landed. */
const jobLabelled = (key: string, labels: Record<string, string>) =>
  waitFor(
    'the submitted job',
    async () => ((await ok('/compute/jobs/list', { labels }, key)).jobs as Array<{ job_id: string }>)[0]?.job_id,
  );

describe('compute run: exit status and terminal output', () => {
  killLeftovers();
  let key = '';
  let agent: AgentProcess | undefined;
  before(async () => {
    ({ key } = await newWorkspace());
    agent = await spawnAgent({ key, concurrency: 2 });
  });
  after(async () => {
    await agent?.child.stop(2000);
  });

  it('exits 124 when the job times out', async () => {
    const run = await startCompute(['run', manifest({ command: 'echo started; sleep 30', timeoutSeconds: 1 })], {
      env: { COMPUTE_API_KEY: key },
    }).finished(45_000);
    assert.equal(run.code, 124, run.stderr);
    assert.match(run.stderr, /job_\w+ timed-out/);
  });

  it('exits 130 when the job is cancelled while it streams', async () => {
    const run = background(
      startCompute(['run', manifest({ command: 'echo started; sleep 30', labels: { case: 'cancel' } })], {
        env: { COMPUTE_API_KEY: key },
      }),
    );
    await run.printed(/^started$/m);
    const jobId = await jobLabelled(key, { case: 'cancel' });
    await ok('/compute/jobs/cancel', { job_id: jobId }, key);
    const done = await run.finished(30_000);
    assert.equal(done.code, 130, done.stderr);
    assert.equal(done.stdout, 'started\n');
    assert.match(done.stderr, new RegExp(`${jobId} cancelled`));
  });

  it('exits 1 for any other failure: the agent could not start the command (failed, exit code 0)', async () => {
    // A node played by hand, so the job fails the way a real agent reports a command it could not
    // start: exit code 0 with an error. Its exit code must not become the CLI's success.
    const node = await registerNode(key, { by: 'hand' });
    const run = background(
      startCompute(['run', manifest({ command: 'echo never', selector: { by: 'hand' } })], {
        env: { COMPUTE_API_KEY: key },
      }),
    );
    const held = await waitFor('the job to reach the hand-played node', () => pollOne(node, 2), 30_000);
    await ok(
      '/compute/nodes/result',
      {
        nodeId: node.nodeId,
        job_id: held.job_id,
        leaseId: held.leaseId,
        exitCode: 0,
        runtimeMs: 1,
        error: 'sh: not found',
      },
      node.nodeKey,
    );
    const done = await run.finished(30_000);
    const job = await retrieve(key, held.job_id);
    assert.deepEqual([job.state, job.exitCode, job.failureReason], ['failed', 0, 'agent_error']);
    assert.equal(done.code, 1, done.stderr);
    assert.match(done.stderr, new RegExp(`${held.job_id} failed \\(exit 0\\)`));
  });

  it('a manifest the API refuses: fails, naming each bad field and the code', async () => {
    const run = await startCompute(['run', manifest({ comand: 'echo typo', timeoutSeconds: 0 })], {
      env: { COMPUTE_API_KEY: key },
    }).finished(30_000);
    assert.notEqual(run.code, 0);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /comand: unknown field/);
    assert.match(run.stderr, /timeoutSeconds: /);
    assert.match(run.stderr, /\[request\.invalid\]/);
  });

  it('--no-follow prints the job ID alone and returns at once, while the job is still queued', async () => {
    // No agent matches the selector: following would never end, so returning proves it did not.
    const run = await startCompute(
      ['run', '--no-follow', manifest({ command: 'echo should-not-stream', selector: { nobody: 'here' } })],
      { env: { COMPUTE_API_KEY: key } },
    ).finished(30_000);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^job_\w+\n$/);
    assert.equal(run.stderr, '');
    const job = await retrieve(key, run.stdout.trim());
    assert.equal(job.state, 'queued');
    assert.equal(job.command, 'echo should-not-stream');
  });

  it('shows colours and the spinner on a terminal only', async () => {
    const file = manifest({ command: 'echo out-line; echo err-line >&2' });
    const inTerminal = await background(
      startComputeInTerminal(['run', file], { env: { COMPUTE_API_KEY: key } }),
    ).finished(45_000);
    const screen = inTerminal.stdout;
    assert.equal(inTerminal.code, 0, screen);
    assert.ok(screen.includes('\x1b[31merr-line\x1b[0m'), `stderr in red on a terminal:\n${JSON.stringify(screen)}`);
    assert.match(screen, new RegExp(`${SPINNER.source} job_\\w+ queued`), 'a spinner while queued');
    assert.match(screen, /out-line\r\n/);

    const piped = await startCompute(['run', file], { env: { COMPUTE_API_KEY: key } }).finished(45_000);
    assert.equal(piped.code, 0, piped.stderr);
    for (const [name, text] of [
      ['stdout', piped.stdout],
      ['stderr', piped.stderr],
    ]) {
      assert.ok(!text.includes('\x1b'), `no escape sequence on a piped ${name}: ${JSON.stringify(text)}`);
      assert.doesNotMatch(text, SPINNER, `no spinner on a piped ${name}`);
    }
    assert.equal(piped.stdout, 'out-line\n');
    assert.match(piped.stderr, /^err-line$/m);
  });
});

/**
 * A TCP proxy in front of the API that keeps each connection's request head, can cut every open
 * connection, and can hold new ones until released.
 */
async function cuttableProxy(upstreamUrl: string) {
  const upstream = new URL(upstreamUrl);
  const heads: string[] = [];
  const sockets = new Set<net.Socket>();
  let accepted = 0;
  let gate: Promise<void> = Promise.resolve();
  const server = net.createServer((client) => {
    accepted++;
    client.pause();
    client.on('error', () => undefined);
    sockets.add(client);
    void gate.then(() => {
      if (client.destroyed) return;
      const api = net.connect(Number(upstream.port), upstream.hostname);
      api.on('error', () => undefined);
      sockets.add(api);
      let head = '';
      const readHead = (chunk: Buffer) => {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end < 0) return;
        heads.push(head.slice(0, end));
        client.off('data', readHead);
      };
      client.on('data', readHead);
      client.on('close', () => api.destroy());
      api.on('close', () => client.destroy());
      client.pipe(api);
      api.pipe(client);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    heads,
    accepted: () => accepted,
    /** Drops every open connection, holding the next ones until `release()`. */
    cut(): () => void {
      let release!: () => void;
      gate = new Promise<void>((resolve) => (release = resolve));
      for (const s of sockets) s.destroy();
      sockets.clear();
      return release;
    },
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('compute logs -f', () => {
  killLeftovers();
  it('follows until the job ends and, cut mid-way, resumes with Last-Event-ID: every line once, in order', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key, { command: 'played by hand' });
    const held = (await pollOne(node))!;
    const beat = heartbeatInBackground(node, [sub.job_id]);
    const proxy = await cuttableProxy(testEnv().url);
    try {
      const push = (from: number, to: number) =>
        ok(
          '/compute/nodes/logs',
          {
            nodeId: node.nodeId,
            job_id: held.job_id,
            leaseId: held.leaseId,
            lines: Array.from({ length: to - from + 1 }, (_, i) => ({
              seq: from + i,
              stream: 'stdout',
              line: `line ${from + i}`,
            })),
          },
          node.nodeKey,
        );
      await push(1, 5);
      const follow = background(
        startCompute(['logs', sub.job_id, '-f', '--api', proxy.url], { env: { COMPUTE_API_KEY: key } }),
      );
      await follow.printed(/^line 5$/m);

      // Cut the stream; lines 6-8 land while the CLI is away, then it is let back in.
      const release = proxy.cut();
      await waitFor(
        'the CLI to reconnect',
        () => {
          if (follow.exitCode() !== undefined)
            throw new Error(`the CLI exited (${follow.exitCode()}) instead of reconnecting: ${follow.stderr()}`);
          return proxy.accepted() === 2;
        },
        30_000,
      );
      await push(6, 8);
      release();
      await follow.printed(/^line 8$/m);
      await push(9, 10);
      await follow.printed(/^line 10$/m);
      assert.equal((await retrieve(key, sub.job_id)).state, 'running', 'it streamed live, before the job ended');
      await ok(
        '/compute/nodes/result',
        { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 0, runtimeMs: 5 },
        node.nodeKey,
      );

      const done = await follow.finished(30_000);
      assert.equal(done.code, 0, done.stderr);
      assert.equal(done.stdout, Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join(''));
      assert.equal(proxy.heads.length, 2, proxy.heads.join('\n---\n'));
      assert.doesNotMatch(proxy.heads[0], /^last-event-id:/im);
      assert.match(proxy.heads[1], /^last-event-id: 5\r?$/im, 'the reconnect resumes after the last line shown');
    } finally {
      await beat.stop();
      await proxy.close();
    }
  });
});

describe('compute jobs cancel and retry', () => {
  it('cancel: the queued job is cancelled', async () => {
    const { key } = await newWorkspace();
    const sub = await submit(key, { command: 'sleep 30' });
    const out = await compute(['jobs', 'cancel', sub.job_id], { env: { COMPUTE_API_KEY: key } });
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^state\s+cancelled$/m);
    assert.equal((await retrieve(key, sub.job_id)).state, 'cancelled');
  });

  it('retry: the failed job is queued again with attempt + 1', async () => {
    const { key } = await newWorkspace();
    const node = await registerNode(key);
    const sub = await submit(key, { command: 'false' });
    const held = (await pollOne(node))!;
    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: held.job_id, leaseId: held.leaseId, exitCode: 1, runtimeMs: 1 },
      node.nodeKey,
    );
    await waitFor('the job to fail', async () => (await retrieve(key, sub.job_id)).state === 'failed');
    const out = await compute(['jobs', 'retry', sub.job_id, '--json'], { env: { COMPUTE_API_KEY: key } });
    assert.equal(out.code, 0, out.stderr);
    const printed = JSON.parse(out.stdout);
    assert.deepEqual([printed.job_id, printed.state, printed.attempt], [sub.job_id, 'queued', 2]);
    const job = await retrieve(key, sub.job_id);
    assert.deepEqual([job.state, job.attempt], ['queued', 2]);
    const again = (await pollOne(node))!;
    assert.deepEqual([again.job_id, again.attempt], [sub.job_id, 2], 'an agent gets it again as attempt 2');
    await ok(
      '/compute/nodes/result',
      { nodeId: node.nodeId, job_id: again.job_id, leaseId: again.leaseId, exitCode: 0, runtimeMs: 1 },
      node.nodeKey,
    );
  });
});

describe('compute jobs list', () => {
  it('filters by --state and --label, pages with --limit and --cursor, newest first, as a table or --json', async () => {
    const { key } = await newWorkspace();
    // No agent in this workspace: the jobs stay queued unless cancelled.
    const oldest = (await submit(key, { labels: { team: 'a' } })).job_id as string;
    const middle = (await submit(key, { labels: { team: 'b' } })).job_id as string;
    const newest = (await submit(key, { labels: { team: 'a' } })).job_id as string;
    await ok('/compute/jobs/cancel', { job_id: middle }, key);
    const env = { COMPUTE_API_KEY: key };
    const json = async (args: string[]) => {
      const out = await compute(['jobs', 'list', ...args, '--json'], { env });
      assert.equal(out.code, 0, out.stderr);
      const page = JSON.parse(out.stdout) as { jobs: Array<{ job_id: string }>; nextCursor: string | null };
      return { ids: page.jobs.map((j) => j.job_id), nextCursor: page.nextCursor };
    };
    const [all, cancelled, teamA, table] = await Promise.all([
      json([]),
      json(['--state', 'cancelled']),
      json(['--label', 'team=a']),
      compute(['jobs', 'list', '--limit', '2'], { env }),
    ]);
    assert.deepEqual(all, { ids: [newest, middle, oldest], nextCursor: null });
    assert.deepEqual(cancelled.ids, [middle]);
    assert.deepEqual(teamA.ids, [newest, oldest]);

    assert.equal(table.code, 0, table.stderr);
    const rows = table.stdout.trimEnd().split('\n');
    assert.match(rows[0], /^ID\s+STATE\s+TYPE\s+ATTEMPT\s+CREATED\s+EXIT\s+NODE$/);
    assert.deepEqual(
      rows.slice(1).map((r) => r.split(/\s+/).slice(0, 2)),
      [
        [newest, 'queued'],
        [middle, 'cancelled'],
      ],
    );
    const cursor = /more: --cursor (\S+)/.exec(table.stderr)?.[1];
    assert.ok(cursor, `the next page's cursor on stderr: ${table.stderr}`);
    assert.deepEqual(await json(['--limit', '2', '--cursor', cursor]), { ids: [oldest], nextCursor: null });
  });
});
