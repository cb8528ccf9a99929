import type { PagedList } from '../use-paged';

/** "First" and "Next" for a list read page by page; `what` names the list for a screen reader. */
export function Pager<T>({ list, what }: { list: PagedList<T>; what: string }) {
  if (list.atStart && !list.page?.next) return null;
  return (
    <nav class="pages" aria-label={`${what} pages`}>
      {!list.atStart && (
        <button type="button" class="secondary" onClick={list.restart}>
          First page
        </button>
      )}
      {list.page?.next && (
        <button type="button" class="secondary" onClick={list.more}>
          Next page
        </button>
      )}
    </nav>
  );
}
