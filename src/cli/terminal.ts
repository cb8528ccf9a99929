import readline from 'node:readline/promises';

// Prompts and status go to stderr, so stdout carries only the command's result (a key, a table).

const tty = process.stderr.isTTY;
const paint = (code: number) => (s: string) => (tty ? `\x1b[${code}m${s}\x1b[0m` : s);
export const green = paint(32);
export const dim = paint(2);
export const bold = paint(1);

export function status(message: string): void {
  process.stderr.write(`${message}\n`);
}

/** One line from the person (or from piped stdin). */
export async function ask(question: string): Promise<string> {
  const rl = readline.createInterface({
    input: process.stdin,
    output: process.stderr,
    terminal: Boolean(process.stdin.isTTY),
  });
  try {
    if (!process.stdin.isTTY) process.stderr.write(question);
    const answer = process.stdin.isTTY
      ? await rl.question(question)
      : await new Promise<string>((resolve) => rl.once('line', resolve).once('close', () => resolve('')));
    return answer.trim();
  } finally {
    rl.close();
  }
}

/** A value as indented JSON on stdout, for scripts (`--json`). */
export const printJson = (v: unknown): void => void process.stdout.write(`${JSON.stringify(v, null, 2)}\n`);

/** Rows as aligned columns on stdout. */
export function printTable(headers: string[], rows: string[][]): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const header = line(headers);
  process.stdout.write(`${process.stdout.isTTY ? `\x1b[1m${header}\x1b[0m` : header}\n`);
  for (const r of rows) process.stdout.write(`${line(r)}\n`);
}

/** Job stderr in red, when a person is watching. */
export const paintStderr = paint(31);

/** A one-line spinner on stderr while a person waits; silent when stderr is not a terminal. */
export class Spinner {
  private static readonly FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  private timer?: NodeJS.Timeout;
  private frame = 0;

  constructor(private text: string) {
    if (!tty) return;
    this.timer = setInterval(() => this.draw(), 80);
    this.draw();
  }

  update(text: string): void {
    this.text = text;
  }

  private draw(): void {
    process.stderr.write(`\r\x1b[2K${Spinner.FRAMES[this.frame++ % Spinner.FRAMES.length]} ${this.text}`);
  }

  stop(): void {
    if (!this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
    process.stderr.write('\r\x1b[2K');
  }
}

const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;

/** A byte counter on one stderr line (at most 10 redraws a second); silent when not a terminal. */
export class Progress {
  private last = 0;
  constructor(
    private readonly label: string,
    private readonly total: number,
  ) {}

  update(done: number): void {
    if (!tty || Date.now() - this.last < 100) return;
    this.last = Date.now();
    const pct = this.total > 0 ? Math.floor((done / this.total) * 100) : 100;
    process.stderr.write(`\r\x1b[2K${this.label} ${green(`${pct}%`)} ${dim(`${mib(done)} / ${mib(this.total)}`)}`);
  }

  done(): void {
    if (tty) process.stderr.write('\r\x1b[2K');
  }
}
