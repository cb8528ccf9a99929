import fs from 'node:fs';
import path from 'node:path';

// A job's control group: a CPU quota of its `cpu` cores and a memory limit of its `memoryMb`,
// and what it really used, read back when it ends. cgroup v2 where the host mounts it with the
// cpu and memory controllers; otherwise cgroup v1's cpu, cpuacct and memory hierarchies.

const ROOT = '/sys/fs/cgroup';
/** Every job's group sits under this one, in each hierarchy. */
const PARENT = 'compute-jobs';
const PERIOD_US = 100_000;
const MIB = 1024 * 1024;

export interface JobLimits {
  cpu: number;
  memoryMb: number;
}

export interface JobUsage {
  cpuSeconds: number;
  peakMemoryMb: number;
  /** The kernel killed one of its processes for passing the memory limit. */
  oomKilled: boolean;
}

/** This host offers no control groups we can use; the message says what is missing. */
export class CgroupsUnavailable extends Error {}

type Layout = { version: 2; dir: string } | { version: 1; cpu: string; cpuacct: string; memory: string };

let layout: Layout | undefined;

/** The host's layout, or a `CgroupsUnavailable` that says what a host needs. */
export function cgroupLayout(): Layout {
  if (layout) return layout;
  const v2Controllers = read(path.join(ROOT, 'cgroup.controllers'));
  if (v2Controllers !== null) {
    const has = v2Controllers.split(/\s+/);
    if (!has.includes('cpu') || !has.includes('memory'))
      throw new CgroupsUnavailable('cgroup v2 is mounted without the cpu and memory controllers');
    const dir = path.join(ROOT, PARENT);
    fs.mkdirSync(dir, { recursive: true });
    // Our own group passes both controllers on to each job's group.
    write(path.join(ROOT, 'cgroup.subtree_control'), '+cpu +memory');
    write(path.join(dir, 'cgroup.subtree_control'), '+cpu +memory');
    return (layout = { version: 2, dir });
  }
  const v1 = { cpu: path.join(ROOT, 'cpu'), cpuacct: path.join(ROOT, 'cpuacct'), memory: path.join(ROOT, 'memory') };
  for (const [name, dir] of Object.entries(v1)) {
    if (!fs.existsSync(path.join(dir, 'cgroup.procs')))
      throw new CgroupsUnavailable(`neither cgroup v2 nor the cgroup v1 ${name} hierarchy (${dir}) is mounted`);
  }
  for (const dir of Object.values(v1)) fs.mkdirSync(path.join(dir, PARENT), { recursive: true });
  return (layout = { version: 1, ...v1 });
}

/** A control group for one job, made with its limits before any of its processes start. */
export class JobCgroup {
  private constructor(
    private readonly layout: Layout,
    private readonly name: string,
  ) {}

  static create(name: string, limits: JobLimits): JobCgroup {
    const l = cgroupLayout();
    const group = new JobCgroup(l, name);
    for (const dir of group.dirs()) fs.mkdirSync(dir, { recursive: true });
    const quotaUs = Math.max(1000, Math.round(limits.cpu * PERIOD_US));
    const bytes = String(limits.memoryMb * MIB);
    if (l.version === 2) {
      write(group.file('cpu.max'), `${quotaUs} ${PERIOD_US}`);
      write(group.file('memory.max'), bytes);
      // Swap would let it hold more than it pays for; not every host has swap accounting.
      tryWrite(group.file('memory.swap.max'), '0');
    } else {
      write(group.file('cpu.cfs_period_us', 'cpu'), String(PERIOD_US));
      write(group.file('cpu.cfs_quota_us', 'cpu'), String(quotaUs));
      write(group.file('memory.limit_in_bytes', 'memory'), bytes);
      tryWrite(group.file('memory.memsw.limit_in_bytes', 'memory'), bytes);
    }
    return group;
  }

  /** The files a process writes its PID to, to join the group in every hierarchy. */
  procsFiles(): string[] {
    return this.dirs().map((dir) => path.join(dir, 'cgroup.procs'));
  }

  usage(): JobUsage {
    if (this.layout.version === 2) {
      const usec = Number(/^usage_usec (\d+)/m.exec(read(this.file('cpu.stat')) ?? '')?.[1] ?? 0);
      const peak = Number(read(this.file('memory.peak')) ?? 0);
      const ooms = Number(/^oom_kill (\d+)/m.exec(read(this.file('memory.events')) ?? '')?.[1] ?? 0);
      return { cpuSeconds: usec / 1e6, peakMemoryMb: peak / MIB, oomKilled: ooms > 0 };
    }
    const ns = Number(read(this.file('cpuacct.usage', 'cpuacct')) ?? 0);
    const peak = Number(read(this.file('memory.max_usage_in_bytes', 'memory')) ?? 0);
    const control = read(this.file('memory.oom_control', 'memory')) ?? '';
    const ooms = Number(/^oom_kill (\d+)/m.exec(control)?.[1] ?? 0);
    // Kernels before 4.13 count no kills; hitting the limit (failcnt) is the next best sign.
    const failcnt = /^oom_kill /m.test(control) ? 0 : Number(read(this.file('memory.failcnt', 'memory')) ?? 0);
    return { cpuSeconds: ns / 1e9, peakMemoryMb: peak / MIB, oomKilled: ooms > 0 || failcnt > 0 };
  }

  /** Removes the group once its processes are gone (they may take a moment to be reaped). */
  async remove(): Promise<void> {
    for (const dir of this.dirs()) {
      for (let i = 0; i < 50; i++) {
        try {
          fs.rmdirSync(dir);
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOENT') break;
          await new Promise((r) => setTimeout(r, 100));
        }
      }
    }
  }

  private dirs(): string[] {
    const l = this.layout;
    if (l.version === 2) return [path.join(l.dir, this.name)];
    // Hosts that mount cpu and cpuacct together show one folder under two names.
    return [...new Set([l.cpu, l.cpuacct, l.memory].map((d) => fs.realpathSync(d)))].map((d) =>
      path.join(d, PARENT, this.name),
    );
  }

  private file(name: string, hierarchy?: 'cpu' | 'cpuacct' | 'memory'): string {
    const l = this.layout;
    if (l.version === 2) return path.join(l.dir, this.name, name);
    return path.join(l[hierarchy!], PARENT, this.name, name);
  }
}

function read(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch {
    return null;
  }
}

function write(file: string, value: string): void {
  fs.writeFileSync(file, value);
}

function tryWrite(file: string, value: string): void {
  try {
    fs.writeFileSync(file, value);
  } catch {
    // an optional setting this host lacks
  }
}
