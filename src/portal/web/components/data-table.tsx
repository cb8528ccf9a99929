import type { ComponentChildren } from 'preact';

/** A column's heading; `wide` ones are left out at phone width. False leaves the column out. */
export type Column = string | { name: string; wide: true } | false;

/**
 * A list as a table in a labelled region that scrolls sideways on its own (keyboard-reachable),
 * so a wide row never widens the page. The rows are the children.
 */
export function DataTable({
  label,
  columns,
  children,
}: {
  label: string;
  columns: Column[];
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table>
        <thead>
          <tr>
            {columns.map((c) =>
              c === false ? null : typeof c === 'string' ? (
                <th key={c} scope="col">
                  {c}
                </th>
              ) : (
                <th key={c.name} scope="col" class="wide">
                  {c.name}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
