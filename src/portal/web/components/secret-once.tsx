import { useState } from 'preact/hooks';

/**
 * A secret the API shows this once (a key, a token, a webhook's signing secret): selectable,
 * with a copy button, and gone from the page when dismissed.
 */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no'>();
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied('yes');
    } catch {
      setCopied('no');
    }
  };
  return (
    <div class="secret" role="group" aria-label={label}>
      <p>
        <strong>{label}</strong>: shown only now. Copy it somewhere safe; it cannot be read again.
      </p>
      <div class="secret-row">
        <input readOnly aria-label={label} value={secret} onFocus={(e) => e.currentTarget.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </div>
      <p class="note" role="status">
        {copied === 'yes'
          ? 'Copied.'
          : copied === 'no'
            ? 'The browser refused the clipboard: select the text and copy it.'
            : ''}
      </p>
    </div>
  );
}
