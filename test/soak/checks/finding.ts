/** One broken invariant: which job (when there is one) and what was seen, for the report. */
export interface Finding {
  jobId?: string;
  what: string;
}
