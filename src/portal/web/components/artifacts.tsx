import { useRef, useState } from 'preact/hooks';
import { ApiError, call, problemFrom } from '../api';
import { when } from '../format';
import type { Artifact } from '../types';
import { useAction } from '../use-action';
import { ProblemBox } from './problem-box';
import { DataTable } from './data-table';

interface Presigned {
  id?: string;
  url: string;
}

const sizeText = (bytes: number) =>
  bytes < 1024
    ? `${bytes} B`
    : bytes < 1024 ** 2
      ? `${(bytes / 1024).toFixed(1)} KiB`
      : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** Has the browser save what `url` answers (the download URL answers as an attachment). */
function saveFrom(url: string, name: string): void {
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
}

/**
 * A job's artifacts: each downloaded through a presigned URL (short-lived, asked for at the click),
 * and a file from this computer uploaded as a new one, streamed by the browser to its presigned URL.
 */
export function Artifacts({
  jobId,
  artifacts,
  onUploaded,
}: {
  jobId: string;
  artifacts: Artifact[];
  onUploaded: () => void;
}) {
  const file = useRef<HTMLInputElement>(null);
  const [chosen, setChosen] = useState<File>();
  const [done, setDone] = useState('');
  const action = useAction();

  const download = (a: Artifact) =>
    void action.run(async () => {
      const presigned = await call<Presigned>('POST', '/api/compute/jobs/artifacts/presign-download', {
        body: { job_id: jobId, id: a.id, ttlSeconds: 300 },
      });
      saveFrom(presigned.url, a.name);
    });
  const upload = (e: Event) => {
    e.preventDefault();
    if (!chosen) return;
    void action.run(async () => {
      setDone('');
      const presigned = await call<Presigned>('POST', '/api/compute/jobs/artifacts/presign-upload', {
        body: { job_id: jobId, ttlSeconds: 3600 },
      });
      // The URL authorizes itself: no cookie goes with the bytes.
      const res = await fetch(`${presigned.url}&name=${encodeURIComponent(chosen.name)}`, {
        method: 'PUT',
        body: chosen,
        credentials: 'omit',
        headers: { 'Content-Type': chosen.type || 'application/octet-stream' },
      });
      if (!res.ok) throw new ApiError(await problemFrom(res));
      const stored = (await res.json()) as { payload?: { size: number; sha256: string } };
      setDone(
        `Uploaded ${chosen.name}: ${sizeText(stored.payload?.size ?? chosen.size)}, sha256 ${stored.payload?.sha256 ?? '?'}.`,
      );
      setChosen(undefined);
      if (file.current) file.current.value = '';
      onUploaded();
    });
  };

  return (
    <section aria-labelledby="artifacts-heading">
      <h2 id="artifacts-heading">Artifacts</h2>
      <ProblemBox problem={action.problem} />
      {artifacts.length === 0 ? (
        <p class="note">None yet: the agent uploads what the job&apos;s manifest names when the command ends.</p>
      ) : (
        <DataTable
          label="Artifacts list"
          columns={['Name', 'Size', { name: 'sha256', wide: true }, { name: 'Stored', wide: true }, 'Download']}
        >
          {artifacts.map((a) => (
            <tr key={a.id} data-artifact={a.id}>
              <td>{a.name}</td>
              <td>{sizeText(a.size)}</td>
              <td class="wide">
                <code class="hash">{a.sha256}</code>
              </td>
              <td class="wide">{when(a.createdAt)}</td>
              <td>
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Download ${a.name}`}
                  disabled={action.busy}
                  onClick={() => download(a)}
                >
                  Download
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <form class="inline" onSubmit={upload} aria-label="Upload an artifact">
        <label>
          <span>Artifact file</span>
          <input ref={file} type="file" onChange={(e) => setChosen(e.currentTarget.files?.[0])} />
        </label>
        <button type="submit" disabled={action.busy || !chosen}>
          Upload artifact
        </button>
      </form>
      <p class="note" role="status">
        {done}
      </p>
    </section>
  );
}
