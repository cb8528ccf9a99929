import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type { Command } from 'commander';
import { putFile } from '../../shared/put-file';
import { CliError, type Envelope, type Target, callApi, refusal } from '../api-client';
import { resolveTarget, targetOptions } from '../credentials';
import { Progress, printJson, printTable, status } from '../terminal';

interface Artifact {
  id: string;
  name: string;
  size: number;
  sha256: string;
  createdAt: string;
}

const SESSION_HINT = ' (presigned URLs need a session: run `compute login`, and unset COMPUTE_API_KEY)';

async function artifactsOf(target: Target, jobId: string): Promise<Artifact[]> {
  return (await callApi<{ artifacts: Artifact[] }>(target, '/compute/jobs/retrieve', { job_id: jobId })).artifacts;
}

async function presign<T>(target: Target, path: string, body: unknown): Promise<T> {
  return callApi<T>(target, path, body).catch((err: Error) => {
    throw new CliError(err.message.includes('[auth.forbidden]') ? err.message + SESSION_HINT : err.message);
  });
}

/** A GET on a signed URL (no header of ours); the body is streamed. */
function get(url: string, headers: Record<string, string>): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = (u.protocol === 'https:' ? https : http).get(u, { headers }, resolve);
    req.on('error', (err) => reject(new CliError(`transfer failed: ${err.message}`)));
  });
}

const readAll = async (res: http.IncomingMessage) => {
  let text = '';
  for await (const c of res) text += c;
  return text;
};

function failure(status: number | undefined, text: string): CliError {
  try {
    return refusal(status, JSON.parse(text) as Envelope);
  } catch {
    return refusal(status, null);
  }
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const c of fs.createReadStream(file)) hash.update(c);
  return hash.digest('hex');
}

export function registerArtifactCommands(program: Command): void {
  const artifacts = program.command('artifacts').description("List, download and upload a job's artifacts");

  targetOptions(artifacts.command('list'))
    .description('Artifacts of a job')
    .argument('<jobId>')
    .option('--json', 'print JSON')
    .action(async (jobId: string, opts: { api?: string; key?: string; json?: boolean }) => {
      const list = await artifactsOf(await resolveTarget(opts), jobId);
      if (opts.json) return printJson(list);
      printTable(
        ['ID', 'NAME', 'SIZE', 'SHA256', 'CREATED'],
        list.map((a) => [a.id, a.name, String(a.size), a.sha256.slice(0, 16), a.createdAt]),
      );
    });

  targetOptions(artifacts.command('download'))
    .description('Download an artifact (by id or name); a partial file left by a cut download is resumed')
    .argument('<jobId>')
    .argument('<artifact>', 'its id or its name')
    .option('-o, --output <file>', 'where to write it (default: the base name of the artifact)')
    .action(async (jobId: string, which: string, opts: { api?: string; key?: string; output?: string }) => {
      const target = await resolveTarget(opts);
      const artifact = (await artifactsOf(target, jobId)).find((a) => a.id === which || a.name === which);
      if (!artifact) throw new CliError(`job ${jobId} has no artifact ${which}`);
      const file = opts.output ?? path.basename(artifact.name);
      const have = fs.existsSync(file) ? fs.statSync(file).size : 0;
      const from = have < artifact.size ? have : 0;
      if (have !== artifact.size) {
        const { url } = await presign<{ url: string }>(target, '/compute/jobs/artifacts/presign-download', {
          job_id: jobId,
          id: artifact.id,
        });
        const res = await get(url, from > 0 ? { Range: `bytes=${from}-`, 'If-Range': `"${artifact.sha256}"` } : {});
        if (res.statusCode !== 200 && res.statusCode !== 206) throw failure(res.statusCode, await readAll(res));
        const start = res.statusCode === 206 ? from : 0;
        if (start > 0) status(`resuming at byte ${start}`);
        const progress = new Progress(`${artifact.name}`, artifact.size);
        let done = start;
        res.on('data', (c: Buffer) => progress.update((done += c.length)));
        await new Promise<void>((resolve, reject) => {
          const out = fs.createWriteStream(file, start > 0 ? { flags: 'a' } : {});
          res.pipe(out).on('finish', resolve).on('error', reject);
          res.on('error', reject);
        }).finally(() => progress.done());
      }
      if ((await sha256Of(file)) !== artifact.sha256)
        throw new CliError(`${file} does not match the artifact's sha256; delete it and download again`);
      status(`${file}: ${artifact.size} bytes, sha256 verified`);
      process.stdout.write(`${path.resolve(file)}\n`);
    });

  targetOptions(artifacts.command('upload'))
    .description('Upload a file as an artifact of a job')
    .argument('<jobId>')
    .argument('<file>')
    .option('--name <name>', 'its display name (default: the file name)')
    .action(async (jobId: string, file: string, opts: { api?: string; key?: string; name?: string }) => {
      const target = await resolveTarget(opts);
      const size = await fs.promises.stat(file).then(
        (s) => s.size,
        () => {
          throw new CliError(`cannot read ${file}`);
        },
      );
      const { url } = await presign<{ url: string }>(target, '/compute/jobs/artifacts/presign-upload', {
        job_id: jobId,
      });
      const progress = new Progress(path.basename(file), size);
      const { status: code, body } = await putFile(
        `${url}&name=${encodeURIComponent(opts.name ?? path.basename(file))}`,
        file,
        {
          size,
          contentType: 'application/octet-stream',
          onProgress: (sent) => progress.update(sent),
        },
      )
        .catch((err: Error) => {
          throw new CliError(`transfer failed: ${err.message}`);
        })
        .finally(() => progress.done());
      if (code !== 200) throw failure(code, body);
      const { payload } = JSON.parse(body) as { payload: { id: string; size: number; sha256: string } };
      status(`uploaded ${payload.size} bytes, sha256 ${payload.sha256}`);
      process.stdout.write(`${payload.id}\n`);
    });
}
