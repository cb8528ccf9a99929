import type { JobUsage } from './job-cgroup';

// What a job asks for and is given on an agent: its resources, its GPUs, and what it used.

export interface Resources {
  cpu: number;
  memoryMb: number;
  gpu: number;
}

/** CONTRACT §3's defaults, for a job handed out by an API that does not say. */
export const DEFAULT_RESOURCES: Resources = { cpu: 1, memoryMb: 1024, gpu: 0 };

/** The job's GPUs, for CUDA and for the NVIDIA container runtime; none visible when it has none. */
export const gpuEnvironment = (gpus: number[]): Record<string, string> =>
  gpus.length ? { CUDA_VISIBLE_DEVICES: gpus.join(','), NVIDIA_VISIBLE_DEVICES: gpus.join(',') } : {};

/** The device files a sandboxed job needs for its GPUs: its own, and the driver's shared ones. */
export const gpuDevices = (gpus: number[]) =>
  gpus.length
    ? [...gpus.map((i) => `/dev/nvidia${i}`), '/dev/nvidiactl', '/dev/nvidia-uvm', '/dev/nvidia-uvm-tools']
    : [];

/**
 * What the job used, as its result's `usage` (CONTRACT §9): CPU time measured by its control
 * group, memory as its peak held for its runtime, GPUs as held for its runtime.
 */
export function usageOf(used: JobUsage, runtimeMs: number, resources: Resources) {
  const seconds = runtimeMs / 1000;
  return {
    cpuSeconds: round(used.cpuSeconds),
    gbSeconds: round((used.peakMemoryMb / 1024) * seconds),
    gpuSeconds: round(resources.gpu * seconds),
    peakMemoryMb: round(used.peakMemoryMb),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;
