import { useEffect, useRef, useState } from 'preact/hooks';
import type { Problem } from '../api';
import { parseAnsi } from '../ansi';
import { type FollowStatus, type LogLine, followLog } from '../follow-log';
import type { JobState } from '../types';
import { ProblemBox } from './problem-box';

/** Lines kept on the page; the whole log stays a download away (GET /v0/jobs/{id}/logs). */
const KEEP = 5000;

const STATUS_TEXT: Record<FollowStatus, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Connection lost; resuming where it stopped…',
  ended: 'The job is over: this is its whole log',
  failed: 'The log cannot be followed',
};

function Line({ l }: { l: LogLine }) {
  return (
    <div class={`line ${l.stream}`} data-seq={l.seq} data-stream={l.stream}>
      {l.stream === 'stderr' && <span class="tag">err</span>}
      {parseAnsi(l.line).map((s, i) => (
        <span
          key={i}
          class={
            [s.bold && 'b', s.dim && 'dim', s.italic && 'i', s.underline && 'u'].filter(Boolean).join(' ') || undefined
          }
          style={s.fg || s.bg ? { color: s.fg, backgroundColor: s.bg } : undefined}
        >
          {s.text}
        </span>
      ))}
    </div>
  );
}

/**
 * The job's log as it is written: stdout and stderr told apart (stderr tagged and marked), colours
 * rendered. Lines arriving together are drawn together, once per frame.
 */
export function LogView({ jobId, onEnd }: { jobId: string; onEnd: (state: JobState) => void }) {
  // The lines live outside the state (appending copies nothing); a version counter redraws.
  const kept = useRef<{ lines: LogLine[]; dropped: number }>({ lines: [], dropped: 0 });
  const [version, setVersion] = useState(0);
  const [status, setStatus] = useState<FollowStatus>('connecting');
  const [problem, setProblem] = useState<Problem>();
  const box = useRef<HTMLDivElement>(null);
  const endRef = useRef(onEnd);
  endRef.current = onEnd;

  useEffect(() => {
    kept.current = { lines: [], dropped: 0 };
    setVersion((v) => v + 1);
    let pending: LogLine[] = [];
    let frame = 0;
    const flush = () => {
      frame = 0;
      const k = kept.current;
      k.lines = k.lines.concat(pending);
      pending = [];
      if (k.lines.length > KEEP) k.dropped += k.lines.splice(0, k.lines.length - KEEP).length;
      setVersion((v) => v + 1);
    };
    const follow = followLog(jobId, {
      line: (l) => {
        pending.push(l);
        frame ||= requestAnimationFrame(flush);
      },
      end: (e) => {
        setStatus('ended');
        endRef.current(e.state);
      },
      status: (s, p) => {
        setStatus(s);
        setProblem(p);
      },
    });
    return () => {
      follow.stop();
      cancelAnimationFrame(frame);
    };
  }, [jobId]);

  // Follow the end of the log while the reader is there; leave them be when they scrolled up.
  const atEnd = useRef(true);
  useEffect(() => {
    const el = box.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [version]);
  const onScroll = () => {
    const el = box.current;
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
  };

  return (
    <section class="log-section" aria-labelledby="log-heading">
      <h2 id="log-heading">Log</h2>
      <p class={`log-status ${status}`}>
        {STATUS_TEXT[status]}
        {kept.current.dropped > 0 && ` (the first ${kept.current.dropped} lines are not shown here)`}
      </p>
      <ProblemBox problem={problem} />
      <div class="log" role="log" aria-label="Log" tabIndex={0} ref={box} onScroll={onScroll}>
        {kept.current.lines.map((l) => (
          <Line key={l.seq} l={l} />
        ))}
      </div>
    </section>
  );
}
