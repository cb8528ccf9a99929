import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { glob } from 'tinyglobby';
import { newId } from '../shared/ids';
import { putFile } from '../shared/put-file';
import { backoffMs } from './api';

/** The job's lease no longer holds it (409): uploading more is pointless. */
export class ArtifactLeaseLost extends Error {}

const MAX_FILES = 1000;
const TRIES = 6;
const TYPES: Record<string, string> = {
  '.txt': 'text/plain; charset=utf-8',
  '.log': 'text/plain; charset=utf-8',
  '.json': 'application/json',
  '.html': 'text/html; charset=utf-8',
  '.xml': 'application/xml',
  '.csv': 'text/csv',
  '.gz': 'application/gzip',
  '.tgz': 'application/gzip',
  '.zip': 'application/zip',
  '.tar': 'application/x-tar',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
};
const typeOf = (file: string) => TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';

/**
 * Files under `workDir` matching the globs: regular files only, never a path that leaves it. A
 * symbolic link is no artifact: the agent reads as itself, so a job's link to the agent's own
 * files (its node key) would upload what the job itself may not read.
 */
export async function matchArtifacts(workDir: string, patterns: string[]): Promise<string[]> {
  if (patterns.length === 0) return [];
  const found = await glob(patterns, {
    cwd: workDir,
    onlyFiles: true,
    dot: true,
    followSymbolicLinks: false,
    expandDirectories: false,
  });
  const root = path.resolve(workDir) + path.sep;
  const inside = [...new Set(found)].filter((rel) => path.resolve(workDir, rel).startsWith(root));
  // And no folder on its way may be a link out either.
  const realRoot = (await fs.promises.realpath(workDir)) + path.sep;
  const regular = await Promise.all(
    inside.map(async (rel) => {
      const file = path.join(workDir, rel);
      const stat = await fs.promises.lstat(file).catch(() => null);
      return stat?.isFile() === true && (await fs.promises.realpath(file).catch(() => '')).startsWith(realRoot);
    }),
  );
  return inside.filter((_, i) => regular[i]).sort();
}

const codeOf = (body: string) => {
  try {
    return (JSON.parse(body) as { code?: string }).code ?? '';
  } catch {
    return '';
  }
};

/**
 * Uploads every file matching `patterns` through the poll's URL template, one at a time, each
 * under a fresh id with its relative path as name. Network errors and 5xx are retried with
 * backoff; a refusal is reported on the job's log and the next file goes on; 409 stops it all.
 */
export async function uploadArtifacts(opts: {
  workDir: string;
  patterns: string[];
  template: string;
  report: (stream: 'stdout' | 'stderr', line: string) => void;
  /** The attempt's place in its job's trace: each upload is a span under it. */
  traceparent?: string;
}): Promise<void> {
  const { report } = opts;
  const files = await matchArtifacts(opts.workDir, opts.patterns);
  if (files.length > MAX_FILES)
    report('stderr', `[compute-agent] ${files.length} files match artifacts.paths; uploading the first ${MAX_FILES}`);
  for (const rel of files.slice(0, MAX_FILES)) {
    const file = path.join(opts.workDir, rel);
    const { size } = await fs.promises.stat(file);
    const url = `${opts.template.replace('{id}', newId('art'))}&name=${encodeURIComponent(rel)}`;
    for (let attempt = 0; ; attempt++) {
      let why: string;
      try {
        const { status, body } = await putFile(url, file, {
          size,
          contentType: typeOf(file),
          ...(opts.traceparent && { headers: { traceparent: opts.traceparent } }),
        });
        if (status === 200) {
          const { payload } = JSON.parse(body) as { payload: { sha256: string } };
          report(
            'stdout',
            `[compute-agent] uploaded artifact ${rel} (${size} bytes, sha256 ${payload.sha256.slice(0, 12)}…)`,
          );
          break;
        }
        if (status === 409) throw new ArtifactLeaseLost(`artifact upload refused: ${codeOf(body)}`);
        why = `${status} ${codeOf(body)}`;
        if (status < 500 && status !== 429) {
          report('stderr', `[compute-agent] artifact ${rel} was refused: ${why}`);
          break;
        }
      } catch (err) {
        if (err instanceof ArtifactLeaseLost) throw err;
        why = (err as Error).message;
      }
      if (attempt + 1 >= TRIES) {
        report('stderr', `[compute-agent] could not upload artifact ${rel}: ${why}`);
        break;
      }
      await sleep(backoffMs(attempt + 2));
    }
  }
}
