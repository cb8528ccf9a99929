import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { AgentApi, ApiRefusal, backoffMs } from './api';
import { ArtifactLeaseLost, uploadArtifacts } from './artifact-uploader';
import { JobProcess } from './job-process';
import { LogBatcher } from './log-batcher';
import { loadIdentity, saveIdentity } from './node-identity';
import { CgroupsUnavailable, cgroupLayout, JobCgroup } from './job-cgroup';
import { DEFAULT_RESOURCES, gpuDevices, gpuEnvironment, type Resources, usageOf } from './job-resources';
import { assertSandboxWorks, SandboxUnavailable, type SandboxSettings } from './sandbox';
import { type JobRunTrace, traceJobRun } from './run-trace';

export interface AgentOptions {
  apiUrl: string;
  /** An agent key (or a user key, or a session token's key) to register with. */
  key: string;
  name: string;
  labels: Record<string, string>;
  /** Registering with a managed-pool key: the region whose managed jobs it runs (the API's default: local). */
  region?: string;
  concurrency: number;
  /** Keeps the node identity and the jobs' working folders. */
  dir: string;
  killGraceMs: number;
  /** Log lines each job holds while the API is away (default 100000); past it they are counted. */
  maxBufferedLines?: number;
  log: Logger;
  /**
   * Runs every job in a sandbox (./sandbox), slot n as user `uidBase + n`. Required with a
   * managed-pool key: that agent runs strangers' jobs.
   */
  sandbox?: SandboxSettings;
  /**
   * What this machine has for jobs, registered so the API hands out only jobs that fit what is
   * free; GPUs are handed out by index (0..gpu-1). Without it, jobs come by count of slots.
   */
  capacity?: Resources;
  /** The API refused the node's key (revoked or rotated elsewhere): the agent cannot go on. */
  onFatal?: (err: Error) => void;
}

export type { Resources } from './job-resources';

interface AssignedJob {
  job_id: string;
  leaseId: string;
  command: string;
  env: Record<string, string>;
  attempt: number;
  artifacts: { paths: string[] };
  artifactUploadUrl: string;
  resources?: Resources;
  /** The hand-out's place in the job's trace (docs/guides/tracing.md); absent when the API traces nothing. */
  traceparent?: string;
}

interface Running {
  job: AssignedJob;
  /** Which of the agent's `concurrency` slots it holds (its sandbox user). */
  slot: number;
  /** The GPU indices it holds. */
  gpus: number[];
  /** Its control group (sandboxed jobs): its limits, and what it used. */
  cgroup?: JobCgroup;
  proc: JobProcess;
  batcher: LogBatcher;
  /** The API moved the job on (409): no result is reported. */
  forgotten: boolean;
  /** The attempt's place in the job's trace: its run span's, else the hand-out's. */
  trace: JobRunTrace;
}

/** Managed-pool keys are minted as `ckm…` (src/auth/api-keys). */
const isManagedPoolKey = (key: string) => key.startsWith('ckm');

/**
 * The reference agent: registers (or resumes as) a node, heartbeats, long-polls, runs up to
 * `concurrency` jobs and reports them. Every call retries through API restarts and network
 * errors; a 409 means the job moved on and its process is stopped.
 */
export class Agent {
  private api: AgentApi;
  private nodeId = '';
  private readonly running = new Map<string, Running>();
  private draining = false;
  private heartbeatMs = 30_000;
  private slotFreed: () => void = () => undefined;
  private readonly stopHeartbeat = new AbortController();
  private pollLoop?: Promise<void>;
  private heartbeatLoop?: Promise<void>;

  constructor(private readonly o: AgentOptions) {
    this.api = new AgentApi(o.apiUrl, o.key, (p, why) => o.log.warn({ path: p, why }, 'API call failed; retrying'));
  }

  get id(): string {
    return this.nodeId;
  }

  get runningJobs(): string[] {
    return [...this.running.keys()];
  }

  async start(): Promise<void> {
    if (isManagedPoolKey(this.o.key) && !this.o.sandbox) {
      throw new SandboxUnavailable(
        'a managed-pool agent runs strangers’ jobs and so runs each in a sandbox; this one was started without',
      );
    }
    if (this.o.sandbox) {
      assertSandboxWorks();
      try {
        cgroupLayout();
      } catch (err) {
        throw new SandboxUnavailable(
          `the job sandbox needs control groups: ${err instanceof CgroupsUnavailable ? err.message : String(err)}`,
        );
      }
    }
    await this.resumeOrRegister();
    // A restarted agent takes work again, whatever drain its previous run left.
    await this.api.call('/compute/nodes/drain', { nodeId: this.nodeId, enable: false });
    this.o.log.info(
      {
        nodeId: this.nodeId,
        labels: this.o.labels,
        concurrency: this.o.concurrency,
        ...(this.o.region !== undefined && { region: this.o.region }),
      },
      'agent ready',
    );
    this.heartbeatLoop = this.heartbeats();
    this.pollLoop = this.polls().catch((err: Error) => this.fatal(err));
  }

  private async resumeOrRegister(): Promise<void> {
    const keyPrefix = this.o.key.split('_')[0];
    const saved = await loadIdentity(this.o.dir, this.o.apiUrl, keyPrefix, this.o.region, this.o.capacity);
    if (saved) {
      const api = new AgentApi(this.o.apiUrl, saved.nodeKey);
      const alive = await api.call('/compute/nodes/heartbeat', { nodeId: saved.nodeId, runningJobs: [] }).then(
        () => true,
        (err) => (err instanceof ApiRefusal ? false : Promise.reject(err)),
      );
      if (alive) {
        this.api.key = saved.nodeKey;
        this.nodeId = saved.nodeId;
        this.heartbeatMs = saved.heartbeatIntervalSeconds * 1000;
        return;
      }
    }
    const reg = await this.api.call<{ nodeId: string; apiKey: string; heartbeatIntervalSeconds: number }>(
      '/compute/nodes/register',
      {
        name: this.o.name,
        labels: this.o.labels,
        capabilities: {
          concurrency: this.o.concurrency,
          os: process.platform,
          arch: process.arch,
          cpus: os.cpus().length,
        },
        version: 'compute-agent/0.1.0',
        ...(this.o.region !== undefined && { region: this.o.region }),
        ...(this.o.capacity && { capacity: this.o.capacity }),
      },
    );
    this.heartbeatMs = reg.heartbeatIntervalSeconds * 1000;
    this.nodeId = reg.nodeId;
    this.api.key = reg.apiKey;
    await saveIdentity(this.o.dir, {
      apiUrl: this.o.apiUrl,
      keyPrefix,
      ...(this.o.region !== undefined && { region: this.o.region }),
      ...(this.o.capacity && { capacity: this.o.capacity }),
      nodeId: reg.nodeId,
      nodeKey: reg.apiKey,
      heartbeatIntervalSeconds: reg.heartbeatIntervalSeconds,
    });
  }

  private fatal(err: Error): void {
    if (this.draining) return;
    this.o.log.error({ err: err.message }, 'the API refused this node; it takes no more jobs');
    this.draining = true;
    this.slotFreed();
    this.o.onFatal?.(err);
  }

  private async heartbeats(): Promise<void> {
    const signal = this.stopHeartbeat.signal;
    while (!signal.aborted) {
      try {
        const out = await this.api.call<{ drain: boolean; cancel: string[]; heartbeatIntervalSeconds?: number }>(
          '/compute/nodes/heartbeat',
          { nodeId: this.nodeId, runningJobs: this.runningJobs },
          { budgetMs: this.heartbeatMs, signal },
        );
        this.stopJobs(out.cancel, 'the API asked to stop it');
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ApiRefusal && err.status === 401) this.fatal(err);
        else this.o.log.warn({ err: String(err) }, 'heartbeat failed');
      }
      await sleep(this.heartbeatMs, undefined, { signal }).catch(() => undefined);
    }
  }

  private async polls(): Promise<void> {
    for (let failures = 0; !this.draining;) {
      if (this.running.size >= this.o.concurrency) {
        await new Promise<void>((resolve) => (this.slotFreed = resolve));
        continue;
      }
      try {
        const out = await this.api.call<{ jobs: AssignedJob[]; cancel: string[] }>(
          '/compute/nodes/poll',
          { nodeId: this.nodeId, maxJobs: this.o.concurrency - this.running.size, waitSeconds: 30 },
          { budgetMs: 0 },
        );
        failures = 0;
        this.stopJobs(out.cancel, 'the API asked to stop it');
        for (const job of out.jobs) await this.run(job);
      } catch (err) {
        if (err instanceof ApiRefusal && err.status === 401) throw err;
        this.o.log.warn({ err: String(err) }, 'poll failed; retrying');
        await sleep(backoffMs(failures++));
      }
    }
  }

  private async run(job: AssignedJob): Promise<void> {
    const log = this.o.log.child({ jobId: job.job_id, attempt: job.attempt });
    const batcher = new LogBatcher({
      send: (lines) =>
        this.api.call(
          '/compute/nodes/logs',
          { nodeId: this.nodeId, job_id: job.job_id, leaseId: job.leaseId, lines },
          { budgetMs: 15_000 },
        ),
      onLeaseLost: () => this.forget(job.job_id, 'its log was refused: the job moved on'),
      onError: (err) => log.warn({ err: String(err) }, 'log push failed; will resend'),
      ...(this.o.maxBufferedLines !== undefined && { maxBuffered: this.o.maxBufferedLines }),
    });
    const slot = this.freeSlot();
    const resources = { ...DEFAULT_RESOURCES, ...job.resources };
    const gpus = this.freeGpus(resources.gpu);
    const cgroup = this.o.sandbox ? JobCgroup.create(`${job.job_id}-${job.leaseId}`, resources) : undefined;
    const trace = traceJobRun(job.job_id, job.attempt, this.nodeId, job.traceparent);
    const proc = await JobProcess.start({
      command: job.command,
      env: {
        ...job.env,
        COMPUTE_JOB_ID: job.job_id,
        COMPUTE_ATTEMPT: String(job.attempt),
        ...gpuEnvironment(gpus),
        // The job's own tools join its trace (W3C Trace Context's environment carrier).
        ...(trace.traceparent && { TRACEPARENT: trace.traceparent }),
      },
      workRoot: path.join(this.o.dir, 'work'),
      name: job.job_id,
      ...(this.o.sandbox && { sandbox: { uid: this.o.sandbox.uidBase + slot, devices: gpuDevices(gpus) } }),
      ...(cgroup && { cgroupProcs: cgroup.procsFiles() }),
      onLine: (stream, line) => batcher.push(stream, line),
      // Artifacts of a command that ended by itself, before the result; none of a stopped job.
      beforeCleanup: async (workDir, exit) => {
        if (exit.stopped || entry.forgotten || job.artifacts.paths.length === 0) return;
        await uploadArtifacts({
          workDir,
          patterns: job.artifacts.paths,
          template: job.artifactUploadUrl,
          report: (s, l) => batcher.push(s, l),
          traceparent: trace.traceparent,
        }).catch((err) => {
          if (err instanceof ArtifactLeaseLost)
            this.forget(job.job_id, 'its artifact upload was refused: the job moved on');
          else batcher.push('stderr', `[compute-agent] artifact upload failed: ${String(err)}`);
        });
      },
    });
    const entry: Running = { job, slot, gpus, ...(cgroup && { cgroup }), proc, batcher, forgotten: false, trace };
    this.running.set(job.job_id, entry);
    log.info({ pid: proc.pid }, 'job started');
    void proc.exited.then((exit) => this.finish(entry, exit.exitCode, exit.runtimeMs, exit.signal, resources));
  }

  private async finish(
    entry: Running,
    exitCode: number,
    runtimeMs: number,
    signal: NodeJS.Signals | null,
    resources: Resources,
  ): Promise<void> {
    const { job } = entry;
    const log = this.o.log.child({ jobId: job.job_id, attempt: job.attempt });
    try {
      const used = entry.cgroup?.usage();
      await entry.cgroup?.remove();
      entry.trace.end(exitCode, signal);
      if (used?.oomKilled)
        entry.batcher.push(
          'stderr',
          `[compute-agent] out of memory: the job passed its memoryMb of ${resources.memoryMb} and was killed`,
        );
      await entry.batcher.close();
      if (!entry.forgotten) {
        const error = used?.oomKilled
          ? `out of memory: passed its memoryMb of ${resources.memoryMb}`
          : signal
            ? `killed by ${signal}`
            : undefined;
        const body = {
          nodeId: this.nodeId,
          job_id: job.job_id,
          leaseId: job.leaseId,
          exitCode,
          runtimeMs,
          ...(error && { error }),
          ...(used?.oomKilled && { outOfMemory: true }),
          ...(used && { usage: usageOf(used, runtimeMs, resources) }),
        };
        const out = await this.api.call<{ state: string }>('/compute/nodes/result', body, {
          budgetMs: Infinity,
          ...(entry.trace.traceparent && { headers: { traceparent: entry.trace.traceparent } }),
        });
        log.info({ exitCode, runtimeMs, state: out.state }, 'job reported');
      }
    } catch (err) {
      if (err instanceof ApiRefusal) log.warn({ code: err.code }, 'result refused: the job moved on');
      else log.error({ err: String(err) }, 'could not report the result');
    } finally {
      this.running.delete(job.job_id);
      this.slotFreed();
    }
  }

  private freeSlot(): number {
    const taken = new Set([...this.running.values()].map((r) => r.slot));
    let slot = 0;
    while (taken.has(slot)) slot++;
    return slot;
  }

  /** `count` GPU indices no running job holds (the API hands out only jobs that fit). */
  private freeGpus(count: number): number[] {
    if (count === 0 || !this.o.capacity) return [];
    const taken = new Set([...this.running.values()].flatMap((r) => r.gpus));
    return Array.from({ length: this.o.capacity.gpu }, (_, i) => i)
      .filter((i) => !taken.has(i))
      .slice(0, count);
  }

  private forget(jobId: string, why: string): void {
    const entry = this.running.get(jobId);
    if (!entry || entry.forgotten) return;
    entry.forgotten = true;
    this.o.log.warn({ jobId, why }, 'stopping the job and forgetting it');
    entry.proc.stop(this.o.killGraceMs);
  }

  private stopJobs(jobIds: string[], why: string): void {
    for (const jobId of jobIds) {
      const entry = this.running.get(jobId);
      if (!entry) continue;
      this.o.log.info({ jobId, why }, 'stopping job');
      entry.proc.stop(this.o.killGraceMs);
    }
  }

  /** Takes no new job, lets running ones finish and report, then stops. */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.o.log.info({ running: this.runningJobs }, 'draining: finishing running jobs, taking no new ones');
    // Server-side drain answers our waiting long poll at once and shows ops the node is draining.
    await this.api
      .call('/compute/nodes/drain', { nodeId: this.nodeId, enable: true }, { budgetMs: 5_000 })
      .catch(() => undefined);
    this.slotFreed();
    await this.pollLoop?.catch(() => undefined);
    while (this.running.size > 0) await new Promise<void>((resolve) => (this.slotFreed = resolve));
    this.stopHeartbeat.abort();
    await this.heartbeatLoop;
  }

  /** Stops every running job (each is still reported), then drains. */
  async killJobs(): Promise<void> {
    this.stopJobs(this.runningJobs, 'the agent is stopping');
    await this.drain();
  }
}
