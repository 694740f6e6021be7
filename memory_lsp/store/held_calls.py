"""Calls of what a class attribute holds, through a receiver whose class is known: jinja2's
`environment.code_generator_class(...)` in compiler.py, where environment.py's class body says
`code_generator_class = CodeGenerator`, constructs a CodeGenerator; flask's
`self.response_class(...)` in a subclass calls what a base in another file holds.

index/extract.py writes each class body's `x = Foo` / `x = mod.Foo` as a `heldtype` row (src
`Class.x`, the value as its file writes it); a call on the class itself was rewritten there already
(index/instance.py `through_held`). Here a typed call that found no method (store/calls.py
`_resolve_typed`: `_cls` without a `_typed` row) looks for the attribute in its class and the
nearest base holding it, and links the class or function the value names in that base's file
(strategy `typed`). What a subclass holds instead is not followed, as a method's override is
not. A scoped run re-resolves such calls when a held value changes: the row is one of a file's
shape returns (store/code.py `names_rebound`, store/retyped.py).
"""

from __future__ import annotations

from memory_lsp.store.edges import _COLUMNS, _lit
from memory_lsp.store.receiver_classes import ancestors
from memory_lsp.store.return_calls import class_named


def resolve(cur, typed_confidence: float) -> None:
    """CALLS edges for the calls of `_cls` (store/calls.py) that `_typed` left without a method."""
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _held AS
        WITH RECURSIVE open AS (
            SELECT k.* FROM _cls k ANTI JOIN _typed t ON t.path = k.path AND t.line = k.line
                   AND t.name = k.name AND t.src = k.src
            WHERE k.name IN (SELECT name FROM refs WHERE kind = 'heldtype')),
        {ancestors("open")}
        SELECT DISTINCT k.path AS site, k.src, k.line, k.name, h.path, h.rtype, a.d
        FROM open k JOIN anc a ON a.cid = k.cid
        JOIN refs h ON h.kind = 'heldtype' AND h.src = a.base || '.' || k.name
        QUALIFY a.d = min(a.d) OVER (PARTITION BY k.path, k.line, k.name, k.src)""")
    if not cur.execute("SELECT count(*) FROM _held").fetchone()[0]:  # most edits: no such call (its joins cost ~8 ms)
        cur.execute("DROP TABLE _held")
        return
    cur.execute(f"""
        INSERT INTO edges ({_COLUMNS})
        SELECT DISTINCT v.src, v.cid, 'CALLS', v.site, split_part(v.cid, '::', 1), v.line, {_lit(typed_confidence)},
               'typed', v.name, 1
        FROM ({class_named("_held", "v.site, v.src, v.line, v.name", "('class', 'function')")}) v""")
    cur.execute("DROP TABLE _held")
