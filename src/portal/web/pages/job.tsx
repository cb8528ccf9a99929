import { useState } from 'preact/hooks';
import { type Problem, call, problemOf } from '../api';
import { Artifacts } from '../components/artifacts';
import { Attempts } from '../components/attempts';
import { LogView } from '../components/log-view';
import { ConfirmButton } from '../components/confirm-button';
import { ProblemBox } from '../components/problem-box';
import { StateBadge } from '../components/state-badge';
import { duration, labelsText, when } from '../format';
import { usePolling } from '../poll';
import { Link, within } from '../router';
import { temporalRunUrl } from '../settings';
import { type Job, isTerminal } from '../types';
import { useAction } from '../use-action';

/** While a job moves, its record is read again this often (its log comes live over SSE). */
const JOB_REFRESH_MS = 2000;
/** Surface A's retry (B has none): it requeues a FAILED or TIMED_OUT job as a new attempt. */
const RETRYABLE = new Set(['FAILED', 'TIMED_OUT']);

/** One job: its state and attempts, what it ran, its live log, and cancel, retry and its Temporal run. */
export function JobPage({ jobId }: { jobId: string }) {
  const [job, setJob] = useState<Job>();
  // What reading the job met (gone once a read succeeds), and what an action met.
  const [readProblem, setReadProblem] = useState<Problem>();
  const action = useAction();
  const [reload, setReload] = useState(0);
  // A retried job's log goes on under the same numbering: follow it afresh from its start.
  const [generation, setGeneration] = useState(0);

  const read = async (signal?: AbortSignal) => {
    try {
      setJob(await call<Job>('GET', `/v0/jobs/${encodeURIComponent(jobId)}`, { signal }));
      setReadProblem(undefined);
    } catch (err) {
      if (!signal?.aborted) setReadProblem(problemOf(err));
    }
  };
  usePolling(read, JOB_REFRESH_MS, !job || !isTerminal(job.state), [jobId, reload]);

  const act = (work: () => Promise<unknown>) => void action.run(work).then((done) => done && setReload((r) => r + 1));
  const cancel = () => act(() => call('POST', `/v0/jobs/${encodeURIComponent(jobId)}:cancel`));
  const retry = () =>
    act(() =>
      call('POST', '/api/compute/jobs/retry', { body: { job_id: jobId } }).then(() => setGeneration((g) => g + 1)),
    );
  const runUrl = temporalRunUrl(jobId);

  return (
    <section class="job">
      <p class="crumbs">
        <Link href={within('/jobs')}>Jobs</Link> / {jobId}
      </p>
      <h1>Job {jobId}</h1>
      <ProblemBox problem={readProblem ?? action.problem} />
      {job && (
        <>
          <div class="actions">
            <ConfirmButton
              label="Cancel job"
              what={jobId}
              onConfirm={cancel}
              disabled={action.busy || isTerminal(job.state) || job.state === 'CANCELLING'}
            />
            <button type="button" onClick={retry} disabled={action.busy || !RETRYABLE.has(job.state)}>
              Retry job
            </button>
            {runUrl && (
              <a href={runUrl} target="_blank" rel="noopener noreferrer">
                Open in Temporal UI
              </a>
            )}
          </div>
          <dl class="facts">
            <dt id="job-state-label">Job state</dt>
            <dd>
              <span role="status" aria-labelledby="job-state-label" class="state-holder">
                <StateBadge state={job.state} />
              </span>
            </dd>
            <dt>Attempt</dt>
            <dd>
              {job.attempt}
              {job.retry.maxAttempts > 1 && ` (retried automatically up to ${job.retry.maxAttempts} attempts)`}
              {job.agentId && ` · agent ${job.agentId}`}
            </dd>
            <dt>Command</dt>
            <dd>
              <code>{job.command}</code>
            </dd>
            <dt>Labels</dt>
            <dd>{labelsText(job.labels) || '–'}</dd>
            <dt>Created</dt>
            <dd>{when(job.createdAt)}</dd>
            <dt>Started</dt>
            <dd>{when(job.startedAt)}</dd>
            <dt>Finished</dt>
            <dd>
              {when(job.finishedAt)}
              {job.runtimeMs !== null && ` (${duration(job.runtimeMs)})`}
            </dd>
            <dt>Exit code</dt>
            <dd>{job.exitCode ?? '–'}</dd>
            {job.waitingReason && (
              <>
                <dt>Waiting</dt>
                <dd className="waiting-reason">{job.waitingReason}</dd>
              </>
            )}
            {(job.failureReason || job.error) && (
              <>
                <dt>Why</dt>
                <dd>{[job.failureReason, job.error].filter(Boolean).join(': ')}</dd>
              </>
            )}
          </dl>
        </>
      )}
      {job && <Attempts jobId={jobId} version={`${job.state}:${job.attempt}:${reload}`} />}
      {job && <LogView key={`${jobId}:${generation}`} jobId={jobId} onEnd={() => setReload((r) => r + 1)} />}
      {job && <Artifacts jobId={jobId} artifacts={job.artifacts} onUploaded={() => setReload((r) => r + 1)} />}
    </section>
  );
}
