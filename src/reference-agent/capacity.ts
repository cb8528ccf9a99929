import { spawnSync } from 'node:child_process';
import os from 'node:os';
import type { Resources } from './job-resources';

/** What this machine has, as the agent registers it unless told otherwise. */
export function detectCapacity(): Resources {
  return { cpu: os.availableParallelism(), memoryMb: Math.floor(os.totalmem() / (1024 * 1024)), gpu: countGpus() };
}

/** NVIDIA GPUs by `nvidia-smi -L` (one line each); none where it is missing or fails. */
function countGpus(): number {
  const out = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8', timeout: 10_000 });
  if (out.error || out.status !== 0) return 0;
  return out.stdout.split('\n').filter((line) => line.startsWith('GPU ')).length;
}
