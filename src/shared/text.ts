// PostgreSQL text holds any Unicode but NUL, and UTF-8 has no form for a lone surrogate. Output a
// job prints is the job's, not ours to refuse: such characters become U+FFFD and the line is kept.
const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export const storableText = (s: string): string => s.replace(UNSTORABLE, '\uFFFD');
