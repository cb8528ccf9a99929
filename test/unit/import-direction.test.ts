import assert from 'node:assert/strict';
import path from 'node:path';
import madge from 'madge';

// Imports run one way between folders (STYLE 9): a surface depends on the domains, a domain never
// on a surface, the worker on no surface. madge reads every import of the tree (type-only
// imports, erased at build, aside); this test folds its file graph into folders and looks for a
// cycle between them.

const ROOT = path.resolve(__dirname, '../..');

/** `src/jobs/transitions.ts` → `jobs`; `activities/index.ts` → `activities`. */
const folderOf = (file: string) => {
  const parts = file.split('/');
  return parts[0] === 'src' ? (parts.length > 2 ? parts[1] : 'src') : parts[0];
};

/** Every cycle among the folders of `graph` (file → files), as the folders on it. */
export function folderCycles(graph: Record<string, string[]>): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const [from, tos] of Object.entries(graph)) {
    for (const to of tos) {
      const [a, b] = [folderOf(from), folderOf(to)];
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a)!.add(b);
    }
  }
  // Tarjan's strongly connected components: each of more than one folder holds a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        component.push(w);
      } while (w !== v);
      if (component.length > 1) cycles.push(component.sort());
    }
  };
  for (const v of edges.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('imports run one way', () => {
  it('no cycle between the folders of src/, activities/ and workflows/', async function () {
    this.timeout(120_000);
    const result = await madge(['src', 'activities', 'workflows'], {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: true }, tsx: { skipTypeImports: true } },
    });
    const graph = result.obj();
    assert.ok(Object.keys(graph).length > 100, `madge read the tree (${Object.keys(graph).length} files)`);
    assert.ok(graph['src/jobs/transitions.ts']?.includes('src/jobs/projection.ts'), 'and its imports');
    assert.deepEqual(folderCycles(graph), []);
  });

  it('finds a planted cycle, and not a one-way chain', () => {
    const chain = { 'src/http/a.ts': ['src/jobs/b.ts'], 'src/jobs/b.ts': ['src/shared/c.ts'], 'src/shared/c.ts': [] };
    assert.deepEqual(folderCycles(chain), []);
    const planted = { ...chain, 'src/shared/c.ts': ['src/http/d.ts'] };
    assert.deepEqual(folderCycles(planted), [['http', 'jobs', 'shared']]);
  });
});
