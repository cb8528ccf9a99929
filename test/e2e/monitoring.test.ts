// lane: isolated (test/lanes.ts)
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { createApiKey } from '../../src/auth/api-keys';
import type { ManagedChild } from '../../src/stack/child';
import { freePort } from '../../src/stack/ports';
import { ensureTool } from '../../src/stack/tools';
import { type AgentProcess, spawnAgent, waitFor } from '../support/agents';
import { spawnApi } from '../support/api-process';
import { login } from '../support/auth';
import { testEnv } from '../support/env';
import { ok, sleep } from '../support/http';
import { scrape, total } from '../support/metrics';
import { spawnWorker } from '../support/worker-process';

// deploy/'s dashboard and alert rules, checked by the tools that will read them: promtool checks
// the Prometheus config and the rules and runs the rules' unit tests; every series a panel or a
// rule names is one a running API or worker exports; every alert has its runbook section.

const ROOT = path.resolve(__dirname, '../..');
const PROMETHEUS = path.join(ROOT, 'deploy/prometheus');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Rule {
  alert: string;
  expr: string;
  annotations: { runbook_url: string };
}
const rules = () =>
  (parse(read('deploy/prometheus/alerts.yml')) as { groups: Array<{ rules: Rule[] }> }).groups.flatMap((g) => g.rules);
const panelExprs = (): string[] =>
  (JSON.parse(read('deploy/grafana/dashboards/compute.json')).panels as Array<{ targets?: Array<{ expr: string }> }>)
    .flatMap((p) => p.targets ?? [])
    .map((t) => t.expr);
/** The series a PromQL expression names: ours and the Temporal SDK's all carry their prefix. */
const seriesIn = (expr: string) => [...expr.matchAll(/\b(?:compute|temporal)_[a-zA-Z0-9_]*/g)].map((m) => m[0]);

/** Every series name `/metrics` at `url` exports, samples or not (a labelled counter shows its TYPE before its first sample). */
async function exported(url: string): Promise<Set<string>> {
  const res = await fetch(`${url}/metrics`);
  assert.equal(res.status, 200);
  const names = new Set<string>();
  for (const line of (await res.text()).split('\n')) {
    const type = /^# TYPE (\S+) (\S+)/.exec(line);
    if (type) {
      names.add(type[1]);
      if (type[2] === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(type[1] + s);
      if (type[2] === 'counter' && !type[1].endsWith('_total')) names.add(`${type[1]}_total`);
      continue;
    }
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line);
    if (sample) names.add(sample[1]);
  }
  return names;
}

/** GitHub's anchor for a Markdown heading. */
const slug = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\w\- ]/g, '')
    .replace(/ /g, '-');

describe('the dashboard and alert rules in deploy/', function () {
  this.timeout(180_000);

  it('promtool accepts the Prometheus config and the rules, and their unit tests fire and clear every alert', async () => {
    const promtool = await ensureTool('promtool', testEnv().config.toolsDir);
    const run = (...args: string[]) => promisify(execFile)(promtool, args, { cwd: PROMETHEUS });
    assert.match((await run('check', 'config', 'prometheus.yml')).stdout, /SUCCESS: 6 rules found/);
    assert.match((await run('test', 'rules', 'alerts.test.yml')).stdout, /SUCCESS/);
    // Each alert is tested both ways: some evaluation expects it, another expects none.
    const tests = (
      parse(fs.readFileSync(path.join(PROMETHEUS, 'alerts.test.yml'), 'utf8')) as {
        tests: Array<{ alert_rule_test: Array<{ alertname: string; exp_alerts: unknown[] }> }>;
      }
    ).tests.flatMap((t) => t.alert_rule_test);
    for (const { alert } of rules()) {
      const of = tests.filter((t) => t.alertname === alert);
      assert.ok(
        of.some((t) => t.exp_alerts.length > 0),
        `${alert} is tested firing`,
      );
      assert.ok(
        of.some((t) => t.exp_alerts.length === 0),
        `${alert} is tested quiet`,
      );
    }
  });

  it('gives every alert a runbook section that says what it means and what to do', () => {
    const runbook = read('docs/guides/alerts.md');
    const anchors = new Set([...runbook.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1])));
    for (const { alert, annotations } of rules()) {
      assert.equal(annotations.runbook_url, `docs/guides/alerts.md#${alert.toLowerCase()}`, alert);
      assert.ok(anchors.has(alert.toLowerCase()), `docs/guides/alerts.md has a section ${alert}`);
      const section = runbook.split(/^## /m).find((s) => s.startsWith(`${alert}\n`))!;
      assert.match(section, /What it means/, `${alert}: what it means`);
      assert.match(section, /What to do/, `${alert}: what to do`);
    }
  });

  describe('on a running API and worker', () => {
    const children: ManagedChild[] = [];
    let agent: AgentProcess | undefined;
    after(async () => {
      await agent?.child.stop(2000);
      for (const c of children) await c.stop(2000);
    });

    it('exports every series a dashboard panel or an alert rule names', async () => {
      // A worker and an API of their own, as compose runs them; the worker serves the SDK's series.
      const taskQueue = `monitoring-${Date.now()}`;
      const worker = await spawnWorker(taskQueue, 'monitoring-worker', {
        TEMPORAL_METRICS_PORT: String(await freePort()),
      });
      children.push(worker);
      const port = await freePort();
      children.push(await spawnApi(port, { TEMPORAL_TASK_QUEUE: taskQueue }));
      const apiUrl = `http://127.0.0.1:${port}`;

      // A job that times out runs workflow tasks and an activity (its end's write): the SDK's
      // latency series exist once something was timed.
      const session = await login();
      const { key } = await createApiKey(testEnv().db, {
        workspaceId: session.user.workspaceId,
        name: 'monitoring',
        kind: 'user',
      });
      agent = await spawnAgent({ key, apiUrl });
      const job = await ok(
        '/compute/jobs/submit',
        { type: 'COMMAND', command: 'sleep 60', timeoutSeconds: 1 },
        key,
        apiUrl,
      );
      let state = '';
      await waitFor(
        'the job to time out',
        async () => {
          await sleep(500);
          state = (await ok('/compute/jobs/retrieve', { job_id: job.job_id }, key, apiUrl)).state;
          return state === 'timed-out';
        },
        60_000,
      ).catch((err: Error) => assert.fail(`${err.message}: the job is ${state}`));

      // The job's end is counted by whichever process wrote it (the worker's run here), once.
      const samples = [...(await scrape(apiUrl)), ...(await scrape(worker.url))];
      assert.equal(total(samples, 'compute_jobs_finished_total', { state: 'TIMED_OUT' }), 1);
      assert.equal(total(samples, 'compute_attempts_ended_total', { reason: 'timeout' }), 1);
      assert.ok(total(samples, 'compute_agents', { pool: 'self', state: 'ONLINE' }) >= 1, 'its agent is online');

      const names = new Set([...(await exported(apiUrl)), ...(await exported(worker.url))]);
      const named = [...rules().map((r) => r.expr), ...panelExprs()].flatMap(seriesIn);
      assert.ok(named.length > 30, 'the panels and rules name series');
      assert.deepEqual([...new Set(named.filter((n) => !names.has(n)))], [], 'series named that no process exports');
    });
  });
});
