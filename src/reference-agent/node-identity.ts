import fs from 'node:fs/promises';
import path from 'node:path';

/** The node this agent registered as, kept so a restart resumes as the same node. */
export interface NodeIdentity {
  apiUrl: string;
  /** The public prefix of the key it registered with: another key means another node. */
  keyPrefix: string;
  /** The region it registered for (managed-pool agents); another region means another node. */
  region?: string;
  /** The capacity it registered; another capacity means another node. */
  capacity?: { cpu: number; memoryMb: number; gpu: number };
  nodeId: string;
  nodeKey: string;
  heartbeatIntervalSeconds: number;
}

const fileIn = (dir: string) => path.join(dir, 'node.json');

export async function loadIdentity(
  dir: string,
  apiUrl: string,
  keyPrefix: string,
  region?: string,
  capacity?: NodeIdentity['capacity'],
): Promise<NodeIdentity | null> {
  const text = await fs.readFile(fileIn(dir), 'utf8').catch(() => null);
  if (!text) return null;
  try {
    const id = JSON.parse(text) as NodeIdentity;
    const sameCapacity = JSON.stringify(id.capacity ?? null) === JSON.stringify(capacity ?? null);
    return id.apiUrl === apiUrl && id.keyPrefix === keyPrefix && id.region === region && sameCapacity ? id : null;
  } catch {
    return null;
  }
}

export async function saveIdentity(dir: string, id: NodeIdentity): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: 0o700 });
  // A folder made by an older agent (or by hand) may be wider: the node key is only the agent's.
  await fs.chmod(dir, 0o700);
  const tmp = `${fileIn(dir)}.${process.pid}.tmp`;
  await fs.writeFile(tmp, `${JSON.stringify(id, null, 2)}\n`, { mode: 0o600 });
  await fs.rename(tmp, fileIn(dir));
}
