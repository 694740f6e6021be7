"""A private function's untyped parameters, typed by its callers in the same file (Python).

tomlkit's container.py renders each item with `self._render_simple_item(k, v)` inside
`for k, v in self._body`, where `self._body: list[tuple[Key | None, Item]]`, and
`def _render_simple_item(self, key, item)` calls `item.as_string()`: jedi reads the callers and
finds Item.as_string; the file's own bindings say nothing about `item`. Here a parameter with no
annotation and no other binding in its function takes the type its callers in the file pass,
when every caller whose argument has a type passes the same one (a caller passing something
untyped says nothing; one passing another type leaves the parameter untyped).

Only private functions and methods (`_name`, not a dunder) and only undecorated ones: another
file's callers may pass anything to a public one (and would make this file's facts depend on
theirs), and a decorator may change what the call passes. A method is called on self or cls
in its own class; a function (module level) by its bare name. One round: a type a parameter
takes here is not passed on to the functions it is itself an argument of.
"""

from __future__ import annotations

import re

PLAIN = re.compile(r"[A-Za-z_][\w.]*")  # a class as the file names it (`Item`, `items.Item`)
MARK = "->"  # what another file's function returns (index/returns.py): resolved by the graph
NOT_A_CLASS = ("builtin", "local", "super")


def private(name: str) -> bool:
    return name[:1] == "_" and not name.startswith("__")


def arguments(name_node) -> list[tuple[str | None, str]] | None:
    """The arguments of the call whose callee ends at `name_node`, as (keyword or None, text);
    None when one is unpacked (`*xs`, `**kw`) or the call is not a plain one."""
    node = name_node.parent
    if node is not None and node.type == "attribute":
        node = node.parent
    args = node.child_by_field_name("arguments") if node is not None and node.type == "call" else None
    if args is None or args.type != "argument_list":
        return None
    out = []
    for arg in args.named_children:
        if arg.type == "comment":
            continue
        if arg.type in ("list_splat", "dictionary_splat"):
            return None
        if arg.type == "keyword_argument":
            key, value = arg.child_by_field_name("name"), arg.child_by_field_name("value")
            if key is None or value is None:
                return None
            out.append((key.text.decode("utf-8", "replace"), value.text.decode("utf-8", "replace")))
        else:
            out.append((None, arg.text.decode("utf-8", "replace")))
    return out


def _parameters(node, method: bool) -> tuple[list[str], set[str]] | None:
    """(the positional parameters a call fills in order, the names a keyword may fill) of a
    definition, without a method's self; None for a decorated one."""
    if node.parent is not None and node.parent.type == "decorated_definition":
        return None
    params = node.child_by_field_name("parameters")
    if params is None:
        return None
    positional, named, keyword_only = [], set(), False
    for p in params.named_children:
        if p.type in ("list_splat_pattern", "keyword_separator"):
            keyword_only = True
            continue
        if p.type in ("dictionary_splat_pattern", "positional_separator", "comment"):
            continue
        name = p if p.type == "identifier" else p.child_by_field_name("name") or (p.named_children or [None])[0]
        if name is None or name.type != "identifier":
            return None
        text = name.text.decode("utf-8", "replace")
        if not keyword_only:
            positional.append(text)
        named.add(text)
    return (positional[1:] if method else positional), named


def bind(scopes, defs: list, syms: list, calls: list, args_at: dict, sees: dict, type_of, self_names) -> None:
    """Type the untyped parameters of the file's private functions from their callers (module
    docstring). `calls`: ((start, kind, name, receiver, line, whole), innermost def, class) as
    index/extract.py keeps them; `args_at`: each private call's `arguments` by its start;
    `type_of(chain, cls, text, line)`: what an expression is (a receiver's type)."""
    targets = {}  # (class or None, name) -> (qualname, positional, named)
    for (_start, _end, name, kind, node, _owner), sym in zip(defs, syms):
        if private(name) and sym.kind in ("function", "method"):
            method = sym.kind == "method" and sym.parent is not None
            params = _parameters(node, method)
            if params is not None and (sym.parent is None or method):
                targets[(sym.parent, name)] = (sym.qualname, *params)
    if not targets:
        return
    # a bare name a function around the call defines again (`def _f` nested in it) is that one's
    nested = {(s.parent, s.name) for s in syms if s.parent is not None}
    seen: dict[tuple[str, str], set[str]] = {}
    for (start, _kind, name, receiver, line, _whole), top, cls in calls:
        if receiver is None and any((q, name) in nested for q in sees[top] if q is not None):
            continue
        target = targets.get((cls, name) if receiver in self_names else (None, name) if receiver is None else None)
        args = args_at.get(start) if target is not None else None
        if args is None:
            continue
        qual, positional, named = target
        for at, (key, text) in enumerate(args):
            param = key if key is not None else positional[at] if at < len(positional) else None
            if param is None or param not in named:
                continue
            typ = type_of(sees[top], cls, text, line)
            if typ and typ not in NOT_A_CLASS and (PLAIN.fullmatch(typ) or typ.startswith(MARK)):
                seen.setdefault((qual, param), set()).add(typ)
    for key, types in seen.items():
        # a parameter bound nowhere else in its function (no annotation, no assignment)
        if len(types) == 1 and scopes.table.get(key) == (1, None) and len(scopes.lines.get(key, ())) == 1:
            scopes.table[key] = (4, next(iter(types)))
