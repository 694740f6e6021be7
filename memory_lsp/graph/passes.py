"""The graph passes an index run is handed (index/ never imports graph/): what a change rebuilds.

`link` runs inside the run's transaction, after the rows and the imports are written: IMPORTS
edges, call and inheritance resolution, DOCUMENTS edges, promotions. Only the edges from or into
touched files are rebuilt, unless a file's imports, test status or mutation flag changed (fan-in
counts and promotions may then change anywhere); IMPORTS edges and promotions not at all when the
touched files' import rows (lines too) and flags are as they were (the indexer kept them). The
documentation that mentions a symbol added, removed or changed has its DOCUMENTS edges rebuilt.
`score` runs after a whole-workspace run; the edges a later run makes are scored at the end of
`link` from the files' scores as that run left them (a re-parsed file keeps its own).
"""

from __future__ import annotations

from memory_lsp.graph import promotions, resolution, scoring
from memory_lsp.index.indexer import Changes, GraphPasses
from memory_lsp.store import autouse, code, edges
from memory_lsp.store.db import Store


def link(store: Store, cur, changes: Changes) -> None:
    if changes.everywhere or changes.rebound or changes.names or changes.reads_moved:  # more than lines moved
        code.mark_refs_changed(store, cur)
    structural = None if changes.everywhere or changes.structure_changed else changes.changed
    if not changes.links_same:  # else the files' import rows and flags are as they were: so are these edges
        edges.rebuild_import_edges(store, cur, structural)
    if changes.first_run:
        resolution.resolve_all(store, cur)
    elif changes.rebound or changes.names:
        resolution.resolve_again(store, cur, changes.rebound, changes.names)
    # a conftest's autouse fixtures: used by every test below it (a file whose edit only moved lines
    # too: store/moved_lines.py does not take these edges back)
    parsed = None if changes.first_run else changes.changed | changes.rebound
    autouse.rebuild(store, cur, resolution.CONFIDENCE.fixture, parsed)
    documents = None if changes.everywhere else \
        changes.changed | edges.mentioning(store, cur, changes.symbol_names)
    edges.rebuild_documents(store, cur, documents)
    if not changes.links_same:
        promotions.rebuild(store, cur, structural)
    if not changes.first_run:  # the edges made again scored as the last whole run scored them (its
        # file scores kept), so they equal those they replace: the graph that follows reads less
        edges.write_edge_scores(cur, scoring.EDGE_WEIGHTS, only_new=True)
    edges.fill_fingerprints(cur)


PASSES = GraphPasses(link=link, score=scoring.refresh_scores)
