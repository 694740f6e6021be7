"""Bases written as an attribute of a typed value: itsdangerous' test `class BadUnsign(serializer.signer)`
with `serializer: Serializer`, where serializer.py says `self.signer: type[Signer] = signer`.

index/receivers.py `base_marks` marks such an inherit row as a call on `serializer.signer` would be
(`->Serializer.signer`), and index/returns.py `attributes` writes the attribute's type as a
`returntype` row of its class (`Serializer.signer` -> Signer). Here the mark is looked up as a
marked call's is (store/return_calls.py: the attribute, or a method's return, in the owner's class
or its nearest base) and the class it names is the base: an INHERITS edge (strategy `returned`),
made before the calls that walk the bases (`super().unsign()` in BadUnsign) and added to `_inh`,
their walk. The owner's own bases are those already resolved (a class written the usual way, or
by name). A marked base is never guessed by name (store/calls.py `_open_refs`).

A scoped run re-resolves a marked base of another file when the attribute's class, the attribute or
its type's class changes, and with it the calls in that class that walk its bases (store/retyped.py).
"""

from __future__ import annotations

from memory_lsp.store import receiver_classes, return_calls
from memory_lsp.store.code import value_set
from memory_lsp.store.edges import _COLUMNS, _lit
from memory_lsp.store.var_calls import requeue


def resolve(store, cur, confidence: float, syms: str) -> None:
    """INHERITS edges for `_refs`' marked inherit rows, also added to `_inh` (store/calls.py); needs
    `_imports`, `_exports`, `_vt` and `_ft` made."""
    marked = return_calls.marked_names(cur, "inherit")
    if not marked:
        return
    cur.execute(return_calls.owners("inherit", "_irecv"))
    receiver_classes.classes(cur, "_irecv", "_icls", syms)
    return_calls.returned_types(store, cur, receiver_classes.IN_SCOPE, value_set(store, cur, "_i_names", marked),
                                kind="inherit", owned="_icls", out="_irt")
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE _ibase AS
        SELECT DISTINCT r.src, t.cid AS dst, r.path, split_part(t.cid, '::', 1) AS dst_path, r.line, r.name
        FROM _refs r JOIN _irt t ON t.path = r.path AND t.src = r.src AND t.rtype = r.rtype
        WHERE r.kind = 'inherit' AND t.cid IS NOT NULL AND t.cid <> r.src""")
    cur.execute(f"""INSERT INTO edges ({_COLUMNS}) SELECT src, dst, 'INHERITS', path, dst_path, line,
                    {_lit(confidence)}, 'returned', name, 1 FROM _ibase""")
    cur.execute("INSERT INTO _inh SELECT src, dst, name FROM _ibase")
    for temp in ("_irecv", "_icls", "_irt", "_ibase"):
        cur.execute(f"DROP TABLE {temp}")


def bring_dependents(store, cur, selfs: list[str]) -> None:
    """A scoped run's marked bases in `_refs` (their file re-read, or another file's change reaching the
    mark: store/retyped.py) may now be other classes: the calls that walk the bases of their classes and
    subclasses resolve again too (store/var_calls.py `requeue`): `self` and `super()` calls in them, calls on
    a receiver typed by one of them (`BadUnsign().sign()`), and the by-name guesses of their methods (an
    override of a base's method is marked `override`: store/calls.py `_overrides`)."""
    if not cur.execute(f"SELECT count(*) FROM _refs WHERE kind = 'inherit' AND starts_with(rtype, '{return_calls.MARK}')").fetchone()[0]:
        return
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _ikin AS
        WITH RECURSIVE k(cid, d) AS (
            SELECT DISTINCT src, 0 FROM _refs WHERE kind = 'inherit' AND starts_with(rtype, '{return_calls.MARK}')
            UNION ALL
            SELECT e.src, k.d + 1 FROM k JOIN edges e ON e.kind = 'INHERITS' AND e.dst = k.cid WHERE k.d < 8)
        SELECT DISTINCT cid, split_part(cid, '::', 1) AS path, regexp_extract(cid, '[^.:]*$') AS name FROM k""")
    classes = value_set(store, cur, "_ik_names", [r[0] for r in cur.execute("SELECT DISTINCT name FROM _ikin").fetchall()])
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE _dep AS
        SELECT r.* FROM refs r JOIN _ikin k ON k.path = r.path AND (r.src = k.cid OR starts_with(r.src, k.cid || '.'))
        WHERE r.kind = 'call' AND (r.rtype = 'super' OR r.rtype IS NULL AND r.receiver = ANY(?::VARCHAR[]))
        UNION SELECT r.* FROM refs r WHERE r.kind = 'call' AND CASE
            WHEN r.rtype IS NULL THEN split_part(r.receiver, '.', -1) IN {classes}
            WHEN starts_with(r.rtype, '{return_calls.MARK}') THEN split_part(r.rtype, '.', -2) IN {classes}
            ELSE split_part(r.rtype, '.', -1) IN {classes} END
        UNION SELECT r.* FROM refs r JOIN (
            SELECT DISTINCT e.src_path, e.line, e.name FROM edges e JOIN _ikin k ON starts_with(e.dst, k.cid || '.')
            WHERE e.kind = 'CALLS' AND e.strategy IN ('name_unique', 'name_ambiguous', 'override')) g
            ON g.src_path = r.path AND g.line = r.line AND g.name = r.name
        WHERE r.kind = 'call'""", [list(selfs)])
    cur.execute("DROP TABLE _ikin")
    requeue(cur)
