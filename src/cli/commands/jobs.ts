import fs from 'node:fs/promises';
import type { Command } from 'commander';
import { labelPair, timeBound } from '../options';
import { CliError, callApi } from '../api-client';
import { resolveTarget, targetOptions } from '../credentials';
import { exitStatusOf, readJobLog } from '../log-follow';
import { Spinner, paintStderr, printJson, printTable, status } from '../terminal';
import type { JobRecord } from '../records';

function printJob(job: JobRecord): void {
  for (const [k, v] of Object.entries(job))
    process.stdout.write(
      `${k.padEnd(14)} ${typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v ?? '-')}\n`,
    );
}

async function readManifest(file: string): Promise<unknown> {
  const text = await fs.readFile(file, 'utf8').catch(() => {
    throw new CliError(`cannot read ${file}`);
  });
  const yaml = /\.ya?ml$/i.test(file);
  try {
    // yaml is loaded only for a YAML manifest: every other command starts without it.
    return yaml ? (require('yaml') as typeof import('yaml')).parse(text) : JSON.parse(text);
  } catch (err) {
    throw new CliError(`${file} is not valid ${yaml ? 'YAML' : 'JSON'}: ${(err as Error).message}`);
  }
}

export function registerJobCommands(program: Command): void {
  targetOptions(program.command('run'))
    .description("Submit a job from a manifest (JSON or YAML), stream its output, exit with the job's exit code")
    .argument('<manifest>', 'path to the manifest (the body of jobs/submit)')
    .option('--no-follow', 'print the job ID and return at once')
    .option('--json', 'without --follow: print the job record as JSON')
    .action(async (file: string, opts: { api?: string; key?: string; follow: boolean; json?: boolean }) => {
      const target = await resolveTarget(opts);
      const manifest = await readManifest(file);
      const job = await callApi<JobRecord>(target, '/compute/jobs/submit', manifest);
      if (!opts.follow) return void (opts.json ? printJson(job) : process.stdout.write(`${job.job_id}\n`));
      const spinner = new Spinner(`${job.job_id} queued`);
      const watch = setInterval(() => {
        callApi<JobRecord>(target, '/compute/jobs/retrieve', { job_id: job.job_id }).then(
          (j) => spinner.update(`${job.job_id} ${j.state}`),
          () => undefined,
        );
      }, 1000);
      try {
        const end = await readJobLog(target, job.job_id, {
          follow: true,
          onLine: (e) => {
            spinner.stop();
            if (e.stream === 'stderr') process.stderr.write(`${paintStderr(e.line)}\n`);
            else process.stdout.write(`${e.line}\n`);
          },
          onTruncated: (e) =>
            status(`… ${e.droppedLines} lines (${e.droppedBytes} bytes) dropped past the log limit …`),
        });
        spinner.stop();
        const code = exitStatusOf(end!);
        status(`${job.job_id} ${end!.state}${end!.exitCode !== null ? ` (exit ${end!.exitCode})` : ''}`);
        process.exitCode = code;
      } finally {
        clearInterval(watch);
        spinner.stop();
      }
    });

  const jobs = program.command('jobs').description('List and manage jobs');
  targetOptions(jobs.command('list'))
    .description('Jobs of your workspace, newest first')
    .option('--state <state>', 'filter by state (repeatable)', (v: string, all: string[] = []) => [...all, v])
    .option('--label <key=value>', 'filter by label (repeatable)', labelPair)
    .option('--limit <n>', 'at most this many (≤ 200)', (v) => Number(v), 50)
    .option('--since <time>', 'created after: an ISO time or a duration ago (30m, 2h, 7d)', timeBound)
    .option('--until <time>', 'created before: an ISO time or a duration ago', timeBound)
    .option('--cursor <cursor>', 'continue from a previous page')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        api?: string;
        key?: string;
        state?: string[];
        label?: Record<string, string>;
        since?: string;
        until?: string;
        limit: number;
        cursor?: string;
        json?: boolean;
      }) => {
        const target = await resolveTarget(opts);
        const page = await callApi<{ jobs: JobRecord[]; nextCursor: string | null }>(target, '/compute/jobs/list', {
          ...(opts.state && { state: opts.state.length === 1 ? opts.state[0] : opts.state }),
          ...(opts.label && { labels: opts.label }),
          ...(opts.since && { createdAfter: opts.since }),
          ...(opts.until && { createdBefore: opts.until }),
          limit: opts.limit,
          ...(opts.cursor && { cursor: opts.cursor }),
        });
        if (opts.json) return void printJson(page);
        printTable(
          ['ID', 'STATE', 'TYPE', 'ATTEMPT', 'CREATED', 'EXIT', 'NODE'],
          page.jobs.map((j) => [
            j.job_id,
            j.state,
            j.type,
            String(j.attempt),
            j.createdAt,
            j.exitCode === null ? '-' : String(j.exitCode),
            j.nodeId ?? '-',
          ]),
        );
        if (page.nextCursor) status(`more: --cursor ${page.nextCursor}`);
      },
    );
  for (const [name, path, description] of [
    ['get', 'retrieve', 'Show one job'],
    ['cancel', 'cancel', 'Cancel a queued or running job'],
    ['retry', 'retry', 'Run a failed or timed-out job again'],
  ] as const) {
    targetOptions(jobs.command(name))
      .description(description)
      .argument('<jobId>')
      .option('--json', 'print JSON')
      .action(async (jobId: string, opts: { api?: string; key?: string; json?: boolean }) => {
        const job = await callApi<JobRecord>(await resolveTarget(opts), `/compute/jobs/${path}`, { job_id: jobId });
        if (opts.json) printJson(job);
        else printJob(job);
      });
  }

  targetOptions(program.command('logs'))
    .description("Print a job's log; -f follows it until the job ends")
    .argument('<jobId>')
    .option('-f, --follow', 'keep streaming until the job ends')
    .option('--json', 'one JSON object per line')
    .action(async (jobId: string, opts: { api?: string; key?: string; follow?: boolean; json?: boolean }) => {
      const end = await readJobLog(await resolveTarget(opts), jobId, {
        follow: Boolean(opts.follow),
        onLine: (e) => {
          if (opts.json) process.stdout.write(`${JSON.stringify(e)}\n`);
          else if (e.stream === 'stderr') process.stderr.write(`${paintStderr(e.line)}\n`);
          else process.stdout.write(`${e.line}\n`);
        },
        onTruncated: (e) => status(`… ${e.droppedLines} lines (${e.droppedBytes} bytes) dropped past the log limit …`),
      });
      if (end && opts.follow) process.exitCode = exitStatusOf(end);
    });
}
