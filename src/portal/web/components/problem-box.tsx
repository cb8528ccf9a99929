import type { Problem } from '../api';

/** A refusal as the API explained it: its title and detail (and each bad field), never a stack. */
export function ProblemBox({ problem }: { problem?: Problem }) {
  if (!problem) return null;
  return (
    <div role="alert" class="problem">
      <strong>{problem.title}</strong>
      <span>{problem.detail}</span>
      {problem.fields && (
        <ul>
          {problem.fields.map((f) => (
            <li key={f.path}>
              {f.path}: {f.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
