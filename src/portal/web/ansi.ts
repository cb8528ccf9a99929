// A job's output line as styled text: SGR escapes (colours, bold, italic, underline, inverse)
// become styles, every other escape sequence is dropped, and the text stays text (the page renders
// it as text nodes, never as markup: a job's output is hostile). Pure, so it is unit-tested.

export interface Segment {
  text: string;
  /** CSS colours. */
  fg?: string;
  bg?: string;
  bold?: boolean;
  dim?: boolean;
  italic?: boolean;
  underline?: boolean;
}

/** The 16 colours, chosen to read on the log's dark background (black shows as grey). */
const PALETTE = [
  '#8b949e',
  '#ff7b72',
  '#7ee787',
  '#e3b341',
  '#79c0ff',
  '#d2a8ff',
  '#56d4dd',
  '#e6edf3',
  '#a0a8b0',
  '#ffa198',
  '#aff5b4',
  '#f8e3a1',
  '#a5d6ff',
  '#e2c5ff',
  '#b3f0ff',
  '#ffffff',
];

const hex = (n: number) => n.toString(16).padStart(2, '0');
const rgb = (r: number, g: number, b: number) => `#${hex(r)}${hex(g)}${hex(b)}`;

/** xterm's 256 colours: the 16, a 6×6×6 cube, 24 greys. */
export function color256(n: number): string | undefined {
  if (!Number.isInteger(n) || n < 0 || n > 255) return undefined;
  if (n < 16) return PALETTE[n];
  if (n >= 232) {
    const v = 8 + (n - 232) * 10;
    return rgb(v, v, v);
  }
  const c = n - 16;
  const level = (x: number) => (x === 0 ? 0 : 55 + x * 40);
  return rgb(level(Math.floor(c / 36)), level(Math.floor(c / 6) % 6), level(c % 6));
}

interface Style extends Omit<Segment, 'text'> {
  inverse?: boolean;
}

/** `38;5;n` or `38;2;r;g;b` from `codes[i]` on: the colour and how many codes it took. */
function extended(codes: number[], i: number): [string | undefined, number] {
  if (codes[i + 1] === 5) return [color256(codes[i + 2]), 3];
  if (codes[i + 1] === 2) {
    const [r, g, b] = codes.slice(i + 2, i + 5);
    const ok = [r, g, b].every((v) => Number.isInteger(v) && v >= 0 && v <= 255);
    return [ok ? rgb(r, g, b) : undefined, 5];
  }
  return [undefined, 1];
}

function apply(style: Style, params: string): Style {
  const codes = params === '' ? [0] : params.split(/[;:]/).map((p) => (p === '' ? 0 : Number(p)));
  let s = { ...style };
  for (let i = 0; i < codes.length; i++) {
    const c = codes[i];
    if (c === 0) s = {};
    else if (c === 1) s.bold = true;
    else if (c === 2) s.dim = true;
    else if (c === 3) s.italic = true;
    else if (c === 4) s.underline = true;
    else if (c === 7) s.inverse = true;
    else if (c === 22) s.bold = s.dim = undefined;
    else if (c === 23) s.italic = undefined;
    else if (c === 24) s.underline = undefined;
    else if (c === 27) s.inverse = undefined;
    else if (c >= 30 && c <= 37) s.fg = PALETTE[c - 30];
    else if (c >= 90 && c <= 97) s.fg = PALETTE[c - 90 + 8];
    else if (c >= 40 && c <= 47) s.bg = PALETTE[c - 40];
    else if (c >= 100 && c <= 107) s.bg = PALETTE[c - 100 + 8];
    else if (c === 39) s.fg = undefined;
    else if (c === 49) s.bg = undefined;
    else if (c === 38 || c === 48) {
      const [color, used] = extended(codes, i);
      if (c === 38) s.fg = color;
      else s.bg = color;
      i += used - 1;
    }
  }
  return s;
}

// CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), any other two-byte escape, and a lone ESC.
const ESCAPE = /\x1b\[([0-?]*)[ -/]*([@-~])|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x1b/g;
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f]/g;

function segment(text: string, s: Style): Segment {
  const [fg, bg] = s.inverse ? [s.bg ?? '#0d1117', s.fg ?? '#e6edf3'] : [s.fg, s.bg];
  const out: Segment = { text };
  if (fg) out.fg = fg;
  if (bg) out.bg = bg;
  if (s.bold) out.bold = true;
  if (s.dim) out.dim = true;
  if (s.italic) out.italic = true;
  if (s.underline) out.underline = true;
  return out;
}

/** One line of output as segments of plain text, each with its style. */
export function parseAnsi(line: string): Segment[] {
  const out: Segment[] = [];
  let style: Style = {};
  let at = 0;
  const push = (text: string) => {
    const clean = text.replace(CONTROL, '');
    if (clean) out.push(segment(clean, style));
  };
  for (const m of line.matchAll(ESCAPE)) {
    push(line.slice(at, m.index));
    at = m.index + m[0].length;
    if (m[2] === 'm') style = apply(style, m[1]);
  }
  push(line.slice(at));
  return out;
}
