import type pg from 'pg';

/**
 * What a pg Query (or one of ours) sends on a connection, in order: a recorder, not a database.
 * Each message is recorded by its name and what `detail` makes of its options; with `corks`, the
 * stream's cork and uncork too.
 */
export function recordingConnection(
  detail: (o: Record<string, unknown>) => string = () => '',
  { corks = false }: { corks?: boolean } = {},
) {
  const sent: string[] = [];
  const record =
    (what: string) =>
    (o: Record<string, unknown> = {}) =>
      sent.push(`${what}${detail(o)}`);
  const mark = (what: string) => () => (corks ? sent.push(what) : undefined);
  return {
    sent,
    connection: {
      parsedStatements: {} as Record<string, string>,
      submittedNamedStatements: {} as Record<string, string>,
      stream: { cork: mark('cork'), uncork: mark('uncork') },
      parse: record('parse'),
      bind: record('bind'),
      describe: record('describe'),
      execute: record('execute'),
      sync: record('sync'),
      flush: record('flush'),
      close: record('close'),
    },
  };
}

/** A column as PostgreSQL describes it, of type `dataTypeID`, in text. */
export const field = (name: string, dataTypeID: number) =>
  ({ name, dataTypeID, tableID: 0, columnID: 0, dataTypeSize: 0, dataTypeModifier: 0, format: 'text' }) as pg.FieldDef;
