import { useState } from 'preact/hooks';

interface ConfirmButtonProps {
  /** The button's name (`Revoke`, `Remove`): what the action is. */
  label: string;
  /** What it acts on, for the question and the button's description. */
  what: string;
  disabled?: boolean;
  onConfirm: () => void;
}

/** A destructive action asked twice, in the page (no blocking dialog): the button, then Yes or Keep. */
export function ConfirmButton({ label, what, disabled, onConfirm }: ConfirmButtonProps) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button
        type="button"
        class="danger"
        title={`${label} ${what}`}
        disabled={disabled}
        onClick={() => setAsking(true)}
      >
        {label}
      </button>
    );
  return (
    <span class="confirm" role="group" aria-label={`${label} ${what}?`}>
      <span>
        {label} {what}?
      </span>
      <button
        type="button"
        class="danger"
        disabled={disabled}
        onClick={() => {
          setAsking(false);
          onConfirm();
        }}
      >
        Yes, {label.toLowerCase()}
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Keep
      </button>
    </span>
  );
}
