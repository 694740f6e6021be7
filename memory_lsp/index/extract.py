"""Turn one source file into plain facts: symbols, references, imports, effects, chunks.

Runs inside worker processes, so everything it returns is plain records (index/facts.py, cheap
to pickle) and nothing here touches the database. The query file of the language decides what
is captured (convention: grammars/README.md); this module only interprets the captures.
"""

from __future__ import annotations

import functools
import hashlib
import re

from memory_lsp.index import aliases, caller_params, def_time, docs, effects, elements, exprtext, fixtures, handed, instance, languages, made_classes, reads, receivers, receivers_java, receivers_ts, returns, string_imports, type_comments
from memory_lsp.index.facts import Chunk, FileFacts, Import, Ref, Symbol
from memory_lsp.python_protocol import PROTOCOL

MAX_RECEIVER = 80
MAX_TYPED_RECEIVER = 1000  # a longer one is not typed: a 5,000-call chain read per call took minutes (Django's: ~300)
# Query matches start at most this deep in the tree. Unbounded, a query over a 50,000-deep nested expression ran in
# quadratic time (JavaScript: 92 s for one file); real definitions and calls sit ~10 levels deep.
MAX_START_DEPTH = 400


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def fingerprint(data: bytes) -> str:
    """Hash of a syntax subtree's text with all white space removed (survives reformatting)."""
    return hashlib.blake2b(data.translate(None, b" \t\r\n"), digest_size=8).hexdigest()


def extract(path: str, data: bytes, lang_name: str) -> FileFacts:
    facts = FileFacts(path=path, lang=lang_name, hash=content_hash(data), size=len(data),
                      loc=data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        facts.notes.append("invalid_utf8")
        # tree-sitter's query predicates (#match?) decode a node's text strictly and raised on it
        # (found by tests/reliability/test_source_fuzz.py); every offset below is into this copy
        data = data.decode("utf-8", "replace").encode("utf-8")
    if lang_name in docs.DOC_LANGUAGES:
        docs.extract_doc(facts, data)
        return facts
    lang = languages.registry()[lang_name]
    facts.is_test = lang.is_test(path)
    tree = languages.parser(lang_name).parse(data)
    facts.notes += ["syntax_errors"] if tree.root_node.has_error else []
    _interpret(facts, lang, data, tree.root_node)
    if lang_name == "python":  # found in the text too: reads of attributes, names handed on (reads.py, handed.py)
        facts.refs += reads.attribute_reads(data, facts.symbols, lang.class_kinds) + handed.handed_names(data, facts)
        if facts.is_test and (b"parametrize" in data or b"params" in data):
            facts.refs = fixtures.parametrized(tree.root_node, facts.refs)
    string_imports.add(facts, data, tree.root_node)
    return facts


_TYPEVAR = re.compile(r"(?:typing\.|t\.|typing_extensions\.)?TypeVar")
_DECORATOR = re.compile(r"[A-Za-z_][\w.]*(\([^()]*\))?")  # types the name: a dotted name, or a call of one


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


def _interpret(facts: FileFacts, lang, data: bytes, root) -> None:
    import tree_sitter

    defs = []  # (start_byte, end_byte, name, kind, node, owner or None)
    refs = []  # (start_byte, kind, name, receiver, line, the receiver's whole text)
    inherits = []  # (start_byte, child_name or None, base_text, line)
    called = []
    binds = []  # receivers.Binding
    rets = []  # (start_byte, "type" | "value" | "yield", text): index/returns.py
    args_at: dict[int, list | None] = {}  # a private call's arguments by its start: index/caller_params.py
    assignments = []  # module-level assignments: index/aliases.py
    source_lines = None  # the file's lines, split where an isinstance check needs them
    makers: dict[str, list[str]] = {}  # a function returning `type(name, (Base,), ns)` -> the bases
    raised: set[int] = set()  # the starts of the names of calls a `raise` raises (`raise Error(...)`)
    cursor = tree_sitter.QueryCursor(languages.tags_query(lang.name))
    cursor.set_max_start_depth(MAX_START_DEPTH)
    kinds = _pattern_kinds(lang.name)
    for pattern, caps in cursor.matches(root):
        kind = kinds.get(pattern)
        if kind is None:  # what a pattern is follows from its captures: decided once per pattern
            kind = kinds[pattern] = _pattern_kind(caps)
        what = kind[0]
        if what == "definition":
            node = caps[kind[1]][0]
            owner = exprtext.owner_name(_text(caps["owner"][0])) if "owner" in caps else None
            defs.append((node.start_byte, node.end_byte, _text(caps["name"][0]), kind[1][11:], node,
                         owner or None))
        elif what == "call":
            name_node = caps["name"][0]
            recv = caps.get("receiver")
            receiver = whole = _text(recv[0]) if recv else None
            if whole and len(whole) > MAX_TYPED_RECEIVER:
                whole = "?"
            if receiver and (len(receiver) > MAX_RECEIVER or "\n" in receiver):
                receiver = "?"  # stored short; a long chain's type is still worked out from `whole`
            name = _text(name_node)
            refs.append((name_node.start_byte, kind[1], name, receiver, name_node.start_point[0] + 1, whole))
            # what a private function's callers pass it; a builtin's one argument (`bool(x)`: index/instance.py)
            if kind[1] == "call" and (caller_params.private(name) or name in PROTOCOL):
                args_at[name_node.start_byte] = caller_params.arguments(name_node)
            called.append(f"{receiver}.{name}" if receiver else name)
        elif what == "import":
            mod = caps.get("import.module")
            name = caps.get("import.name")
            alias = caps.get("import.alias")
            facts.imports.append(Import(caps["import"][0].start_point[0] + 1,  # @import.own: a row into the file
                                        _text(mod[0]) if mod else "./" + facts.path.rsplit("/", 1)[-1] if "import.own" in caps else "",
                                        _text(name[0]) if name else None,
                                        _text(alias[0]) if alias else None))
        elif what == "inherit":
            base = caps["inherit.base"][0]
            child = caps.get("inherit.child")
            inherits.append((base.start_byte, _text(child[0]) if child else None, _text(base),
                             base.start_point[0] + 1))
        elif what == "bind":
            name_node = caps["bind.name"][0]
            bind_name = _text(name_node)
            if "bind.self" in caps:
                if _text(caps["bind.self"][0]) not in ("self", "this"):
                    continue
                bind_name = "self." + bind_name
            elif "bind.member" in caps:  # a class field or constructor parameter property (TS)
                bind_name = "self." + bind_name
            value = kind[1]
            text = _text(caps["bind." + value][0]) if value not in (None, "callee") else \
                receivers_ts.callback_slot(caps["bind"][0], name_node) if value else None  # a callback's parameter
            line, until = name_node.start_point[0] + 1, None
            if value == "narrow":  # the lines an isinstance check guards (tags.scm)
                line = caps["bind.after"][0].end_point[0] + 2 if "bind.after" in caps else caps["bind"][0].start_point[0] + 1
                source_lines = data.split(b"\n") if source_lines is None else source_lines  # once, where a check is
                guarded = caps["bind.until"][0] if "bind.until" in caps else caps["bind"][0].parent  # an assert's, a guard's block
                until = exprtext.narrowed_until(source_lines, bind_name, line, guarded.end_point[0] + 1)
            binds.append(receivers.Binding(caps["bind"][0].start_byte, bind_name, value or kind[2], text, line, until))
        elif what == "raised":
            raised.add(caps["raised"][0].start_byte)
        elif what == "mutation":
            facts.mutations += 1
        elif what == "alias":
            assignments.append(caps["alias"][0])
        elif what == "decorated":  # the name bound to the decorator's result, where the def binds it
            name_node, by = caps["decorated.name"][0], _text(caps["decorated.by"][0])
            if _DECORATOR.fullmatch(by):
                binds.append(receivers.Binding(caps["decorated"][0].start_byte, _text(name_node), "call", by,
                                               name_node.start_point[0] + 1))  # `by` is what is called
            if facts.is_test and caps["decorated"][0].parent.type == "module":  # a pytest fixture's arguments
                facts.refs += fixtures.decorated(facts.path, by, _text(name_node), name_node.start_point[0] + 1)
        elif what == "returns":
            how = next(k for k in ("type", "value", "yield") if "returns." + k in caps)
            rets.append((caps["returns"][0].start_byte, how, _text(caps["returns." + how][0])))
        elif what == "maker" and (bases := made_classes.bases(caps["maker.bases"][0])):
            makers.setdefault(_text(caps["maker.name"][0]), []).extend(_text(b) for b in bases)

    for node in assignments:  # classes made by type(), directly or by a maker above
        if (made := made_classes.made_class(node, makers)) is not None:
            defs.append((node.start_byte, node.end_byte, made[0], "class", node, None))
            inherits += made[1]
    _nest_definitions(facts, lang, data, defs)
    if assignments:
        top_level = {s.name for s in facts.symbols if s.parent is None}
        facts.imports += aliases.alias_imports(facts.path, assignments, facts.imports, top_level)
        refs += aliases.held_values(assignments, top_level | {i.alias or i.name or i.module.split('.')[0] for i in facts.imports})
    binds += type_comments.declared(binds, data) if lang.name == "python" else []  # `x = {}  # type: Dict[str, Foo]`
    _attach_references(facts, lang, defs, refs, inherits, binds, rets, args_at, raised, makers)
    facts.side_effects = effects.side_effects(lang, facts.imports, called)


def _nest_definitions(facts, lang, data, defs) -> None:
    """Give each definition its qualified name, parent and kind (a function in a class is a method)."""
    defs.sort(key=lambda d: (d[0], -d[1]))
    stack = []  # (end_byte, qualname, kind)
    for start, end, name, kind, node, owner in defs:
        while stack and stack[-1][0] <= start:
            stack.pop()
        parent = stack[-1] if stack else None
        parent_qual = parent[1] if parent else None
        if owner:  # declared outside its type (Go receiver, Rust impl): the owner is the parent
            parent_qual = f"{parent_qual}.{owner}" if parent_qual else owner
            if kind == "function":
                kind = "method"
        elif kind == "function" and parent and parent[2] in lang.class_kinds:
            kind = "method"
        qual = f"{parent_qual}.{name}" if parent_qual else name
        body = data[start:end]
        facts.symbols.append(Symbol(qual, name, kind, node.start_point[0] + 1, node.end_point[0] + 1,
                                    parent_qual, fingerprint(body)))
        stack.append((end, qual, kind))
    # chunks: a function whole; a class up to its first nested definition (members chunk alone)
    for i, (start, end, name, kind, node, _owner) in enumerate(defs):
        sym = facts.symbols[i]
        chunk_end = end
        if sym.kind in lang.class_kinds or sym.kind in ("interface", "trait", "module", "impl"):
            nxt = i + 1
            if nxt < len(defs) and defs[nxt][0] < end:
                chunk_end = defs[nxt][0]
        text = data[start:chunk_end].decode("utf-8", "replace").rstrip()
        end_line = sym.end_line if chunk_end == end else sym.start_line + text.count("\n")
        facts.chunks.append(Chunk(sym.qualname, sym.kind, sym.start_line, end_line, text))


def _attach_references(facts, lang, defs, refs, inherits, binds, rets, args_at, raised, makers) -> None:
    """Find the innermost definition around each reference by one sweep over sorted starts, then
    give each call the type of its receiver from the bindings of its scopes."""
    items = [(r[0], 0, r) for r in refs] + [(h[0], 1, h) for h in inherits] + [(b.pos, 2, b) for b in binds] \
        + [(r[0], 3, r) for r in rets]
    items.sort(key=lambda x: x[0])
    syms, classes = facts.symbols, lang.class_kinds
    # what a reference inside a definition needs follows from the innermost one (the stack above
    # it is its chain of parents), so it is worked out once per definition, when it is entered:
    # the enclosing class, and the scopes whose names it sees (its own, the functions around it,
    # the module's; not a class's)
    cls_of: dict = {None: None}
    alias: dict = {None: None}  # a method's (or its nested functions') other name for self or cls
    outer: dict = {None: []}  # qualnames of the non-class definitions around and including it
    sees: dict = {None: [None]}
    stack = []  # indices into defs (sorted by start, then longest first) and facts.symbols
    di = 0
    rules = receivers_java if lang.name == "java" else receivers_ts if lang.name in receivers_ts.LANGS else receivers
    scopes = receivers.Scopes(rules.binding_type)
    calls = []
    rets_at, bases, context, based = [], {}, {}, []  # for index/returns.py; bases written as attributes
    module_vars: dict[str, int] = {}  # a module-level name bound to a call or a literal, or annotated: its first line
    held: dict[tuple, str] = {}  # (class, attribute) -> the name its class body binds it to
    bound: dict[tuple, str] = {}  # (class, `self.x`) -> the attribute of another value a method binds it to
    assigned: dict[tuple, int] = {}  # (class, x) -> the first line a method of the class binds `self.x` (instance.py)
    typevars: set[str] = set()  # `GrpType = t.TypeVar("GrpType", bound="Group")`: names no class
    for pos, tag, item in items:
        while di < len(defs) and defs[di][0] <= pos:
            while stack and defs[stack[-1]][1] <= defs[di][0]:
                stack.pop()
            parent = stack[-1] if stack else None
            sym = syms[di]
            is_class = sym.kind in classes
            cls_of[di] = sym.qualname if is_class else (sym.parent if defs[di][5] else cls_of[parent])
            outer[di] = outer[parent] if is_class else [sym.qualname] + outer[parent]
            sees[di] = [sym.qualname] + outer[parent] + [None]
            if not is_class:
                context[sym.qualname] = (sees[di], cls_of[di])
            # the instance under another name (`def invoke(__self, ...)`), also in the functions nested in it
            alias[di] = None if is_class or rules is not receivers else \
                instance.other_name(defs[di][4], sym.name) if sym.kind == "method" else alias[parent]
            stack.append(di)
            di += 1
        while stack and defs[stack[-1]][1] <= pos:
            stack.pop()
        top = stack[-1] if stack else None
        enclosing = syms[top] if stack else None
        enclosing_class = cls_of[top]
        if alias[top] is not None and tag != 1:
            item = instance.renamed(item, alias[top])
            if item is None:
                continue
        if tag == 3:
            rets_at.append((enclosing.qualname if enclosing else None, item[1], item[2]))
        elif tag == 2:
            if item.kind == "same":  # `use = serializer` in a function is one operand of `a or b` (tags.scm)
                if enclosing is None or enclosing.kind in classes:
                    continue  # not elsewhere
                item = item._replace(kind="either")
            scope = enclosing_class if item.name.startswith("self.") else (enclosing.qualname if enclosing else None)
            if item.name.startswith("self.") and enclosing is not None and enclosing.qualname != scope:
                assigned.setdefault((scope, item.name[5:]), item.line)
            if item.kind in ("held", "bound"):  # a class body's `x = Foo`; a method's `self.x = y.z`
                if item.kind == "held" and (scope, item.name) not in held:  # for `obj.x(...)` in other files
                    facts.refs.append(Ref("heldtype", f"{scope}.{item.name}", scope, item.name, None, item.line, item.text))
                (held if item.kind == "held" else bound).setdefault((scope, item.name), item.text)
            elif item.kind == "alias":  # `self.x = x`: what x is where it is assigned
                scopes.alias(scope, item.name, enclosing.qualname if enclosing else None, item.text, item.line)
            else:
                where = enclosing.qualname if item.name.startswith("self.") and enclosing is not None else None
                scopes.add(scope, item.name, item.kind, item.text, item.line, where, item.until)
            if scope is None and item.kind in ("type", "call", "literal"):
                module_vars.setdefault(item.name, item.line)
                if item.kind == "call" and _TYPEVAR.fullmatch(item.text or ""):
                    typevars.add(item.name)
            if item.kind == "param" and facts.is_test and enclosing and item.name not in lang.self_names \
                    and len(outer[top]) == 1:  # pytest collects no function nested in another one
                # a test's parameter names a pytest fixture: its own edge kind, not a call
                facts.refs.append(Ref("fixture", enclosing.qualname, enclosing_class, item.name, None, item.line))
        elif tag == 1:
            _, child, base, line = item
            child_qual = child if child else (enclosing.qualname if enclosing else None)
            if child and enclosing and enclosing.name == child:
                child_qual = enclosing.qualname
            receiver, _, name = exprtext.strip_generic(base).replace("::", ".").rpartition(".")
            if receiver and rules is receivers:  # `class B(obj.attr)`: typed once the file is read (receivers.base_marks)
                based.append((len(facts.refs), sees[top], enclosing_class, receiver, name, line))
            elif not receiver and rules is receivers and top is not None:  # a factory's `class X(base)`:
                receiver, name = _class_parameter(scopes, outer[top], name)  # `base: Type[Foo]` names Foo
            facts.refs.append(Ref("inherit", child_qual, enclosing_class, name, receiver or None, line))
            bases.setdefault(child_qual, []).append(name if not receiver else receiver + "." + name)
        else:
            calls.append((item, top, enclosing_class))
    if not languages.types_receivers(lang.name):
        for (_, kind, name, receiver, line, _whole), top, cls in calls:
            facts.refs.append(Ref(kind, syms[top].qualname if top is not None else None, cls, name, receiver, line))
        return
    defined = {(s.parent, s.name) for s in syms}
    calls = [instance.through_held(c, held, defined, lang.self_names) for c in calls] if held else calls
    typer = returns.Returns(scopes, defined, {s.qualname for s in syms if s.kind in classes}, bases, context,
                            frozenset(typevars), rules, makers)
    for func, kind, text in rets_at:
        typer.add(func, kind, text)
    receivers.base_marks(facts.refs, based, scopes, typer)
    if rules is receivers:
        caller_params.bind(scopes, defs, syms, calls, args_at, sees, lambda chain, cls, text, line: rules.rtype(
            scopes, chain, cls, "", text, False, typer, line), lang.self_names)
    header_end = functools.cache(lambda top: def_time.header_end(defs[top][4]))  # a definition's, once
    for (pos, kind, name, receiver, line, whole), top, cls in calls:
        quals = sees[top]
        here = any((q, name) in defined for q in quals)
        rtype = rules.rtype(scopes, quals, cls, name, whole, here, typer, line)
        if rtype is None and bound and receiver in lang.self_names and (cls, name) not in defined:
            rtype = instance.bound_type(bound.get((cls, "self." + name)), scopes, quals, cls, typer, rules)
        facts.refs.append(Ref(kind, syms[top].qualname if top is not None else None, cls, name, receiver, line, rtype))
        if top is not None and rules is receivers and pos < header_end(top):  # run where the def runs too
            facts.refs.append(facts.refs[-1]._replace(src=syms[top].parent))
        if pos in raised:
            facts.refs.append(facts.refs[-1]._replace(kind="raised", rtype=None))
        if kind == "read":  # implies no call
            continue
        for implied in instance.implied(quals, cls, name, receiver, rtype, line, typer, rules, args_at.get(pos), facts.imports):
            facts.refs.append(Ref(kind, syms[top].qualname if top is not None else None, cls, *implied[:2], line, implied[2]))
        also = typer.calls_too(*((quals, name) if receiver is None else ([cls, None], "self." + name))) \
            if rules is receivers and (receiver is None or receiver in lang.self_names) else None
        if also:  # `key(self, *args)` with `key=keys.methodkey`, `cls(...)` with `cls: type[Foo]` (or `self.cls`): read where the def is
            (dreceiver, _, dname), around = also[0].rpartition("."), also[1]
            rtype = rules.rtype(scopes, around, cls, dname, dreceiver or None, any((q, dname) in defined for q in around), typer)
            facts.refs.append(Ref(kind, syms[top].qualname if top is not None else None, cls, dname, dreceiver or None,
                                  line, rtype))
    facts.refs += instance.attributes_set(facts.refs, assigned, lang.self_names) if rules is receivers else []
    # what a module-level name is (`current_app: Flask = LocalProxy(...)`), for the files importing
    # it (store/var_calls.py): a class as this file writes it, or Python's (`port_by_scheme = {...}`)
    for var, line in module_vars.items():
        vtype = rules.rtype(scopes, [None], None, "", var, False, typer)
        if returns.names_class(vtype) or vtype == "builtin":
            facts.refs.append(Ref("vartype", None, None, var, None, line, vtype))
    # what a test file's module-level function gives a test naming it as a parameter (a pytest
    # fixture: `def env(): return Environment()`), for the tests' calls on it (store/fixture_calls.py)
    for s in syms if facts.is_test else ():
        ftype = typer.fixture(s.qualname) if s.parent is None and s.kind == "function" else None
        if returns.names_class(ftype):
            facts.refs.append(Ref("fixturetype", None, None, s.name, None, s.start_line, ftype))
    # what each function returns, what calling its result gives (`->f()` marks) and what iterating it gives
    # (`->f[]`), for the calls of other files marked with it (store/return_calls.py)
    for s in (s for s in syms if s.kind in ("function", "method")) if rets_at else ():
        for kind, typ in (("returntype", typer.of(s.qualname)), ("appliedtype", typer.applied(s.qualname)),
                          ("elementtype", typer.elements(s.qualname))):
            if returns.names_class(typ) or typ == "builtin" and kind != "appliedtype":  # (returns.gives_type)
                facts.refs.append(Ref(kind, s.qualname, s.parent, s.name, None, s.start_line, typ))
    facts.refs += receivers_ts.callback_refs(syms, defs) if rules is receivers_ts else []  # what callbacks get
    # what each class's typed attributes are, read like a method's return (`->Flask.json`: returns.py)
    for s in syms if rules is receivers else ():
        for kind, attr, atype in typer.attributes(s.qualname) if s.kind in classes else ():
            facts.refs.append(Ref(kind, f"{s.qualname}.{attr}", s.qualname, attr, None, s.start_line, atype))


def _class_parameter(scopes, functions: list, name: str) -> tuple[str, str]:
    """A base named by a name the functions around the class bind to a class (a parameter
    annotated `Type[Foo]`): (receiver, name) of that class; else ("", name) as written."""
    hit = scopes.lookup(functions, name) if functions else None
    typ = hit[1] if hit else None
    if not returns.names_class(typ) or typ.startswith((receivers.DEFER, receivers.ANY_OF)):
        return "", name
    receiver, _, last = typ.rpartition(".")
    return receiver, last


@functools.lru_cache(maxsize=None)
def _pattern_kinds(lang_name: str) -> dict:
    """Pattern index -> its kind (below), filled as patterns first match (one dict per process)."""
    return {}


def _pattern_kind(caps: dict) -> tuple:
    """What a match is, from its capture names (no pattern's deciding capture is optional):
    ("definition", key) | ("call",) | ("import",) | ("inherit",) | ("maker",) | ("bind", value, plain) |
    ("mutation",) | ("other",)."""
    if "name" in caps:
        key = next((k for k in caps if k.startswith("definition.")), None)
        if key:
            return ("definition", key)
        if "reference.call" in caps or "reference.read" in caps:  # a read: no call, its receiver typed alike
            return ("call", "read" if "reference.read" in caps else "call")
    for capture, kind in (("import", "import"), ("inherit.base", "inherit"), ("returns", "returns"),
                          ("maker.name", "maker"), ("raised", "raised")):
        if capture in caps:
            return (kind,)
    if "bind" in caps:
        value = next((k for k in ("type", "cast", "call", "literal", "alias", "iter", *elements.TARGET_SLOTS, "held",
                                  "either", "callee", "bound", "narrow", "factory", "default", "typevar", "same") if "bind." + k in caps), None)
        return ("bind", value, "param" if caps["bind"][0].type == "parameters" else "assign")
    return next(((kind,) for kind in ("mutation", "alias", "decorated") if kind in caps), ("other",))

