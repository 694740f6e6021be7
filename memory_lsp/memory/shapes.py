"""What a cited definition is, beyond its text (for citations that survive refactors).

`shape`: a hash of the definition's syntax tree without comments, type annotations, white space
(inside docstrings too) or its own name: adding `# type: ignore`, turning `t.Optional[str]` into
`str | None` or renaming the function is no change to it. `sketch`: a MinHash of its token pairs,
so code that moved to another file and changed there can be found by how alike it is.
Set MEMORY_LSP_STRICT_CITATIONS=1 to make comments and annotations count (`shape` is then None).
"""

from __future__ import annotations

import hashlib
import os

from memory_lsp.index import languages

SKETCH = 32
_PRIME = (1 << 61) - 1
# fixed, so that a sketch written today compares with one computed next year
_SALTS = [(0x9E3779B97F4A7C15 * (i + 1) % _PRIME or 1, 0xC2B2AE3D27D4EB4F * (i + 7) % _PRIME) for i in range(SKETCH)]
_COMMENTS = {"comment", "line_comment", "block_comment", "type_annotation"}
_ANNOTATED = {"typed_parameter", "typed_default_parameter", "function_definition", "assignment"}
_ANNOTATION_FIELDS = {"type", "return_type"}
_ANNOTATION_MARKS = {":", "->"}


def strict() -> bool:
    return os.environ.get("MEMORY_LSP_STRICT_CITATIONS", "") not in ("", "0")


def definitions(data: bytes, lang_name: str) -> dict[tuple[int, int], tuple[str, list[int]]]:
    """(start_line, end_line) of each definition in the file -> (shape, sketch)."""
    if lang_name not in languages.registry():
        return {}
    tree = languages.parser(lang_name).parse(data)
    out: dict[tuple[int, int], tuple[str, list[int]]] = {}
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if _is_definition(node.type):
            key = (node.start_point[0] + 1, node.end_point[0] + 1)
            if key not in out:  # the outer one: a decorated definition before the bare one
                tokens = _tokens(node)
                out[key] = (hashlib.blake2b("\x00".join(tokens).encode(), digest_size=8).hexdigest(), sketch(tokens))
        stack.extend(reversed(node.children))
    return out


def sketch(tokens: list[str]) -> list[int]:
    pairs = {f"{a}\x01{b}" for a, b in zip(tokens, tokens[1:])} or set(tokens) or {""}
    values = [int.from_bytes(hashlib.blake2b(p.encode(), digest_size=8).digest(), "big") for p in pairs]
    return [min((a * v + b) % _PRIME for v in values) & 0x7FFFFFFF for a, b in _SALTS]


def likeness(a: list[int] | None, b: list[int] | None) -> float:
    """Estimated Jaccard similarity of two sketches' token pairs (0 when either is missing)."""
    if not a or not b or len(a) != len(b):
        return 0.0
    return sum(x == y for x, y in zip(a, b)) / len(a)


def _is_definition(kind: str) -> bool:
    return kind.endswith(("_definition", "_declaration", "_item", "_specifier")) or kind in (
        "method", "function", "class", "module", "singleton_method", "impl_item")


def _tokens(root) -> list[str]:
    """The leaves of a definition: comments, annotations and its own name left out, no white space."""
    name = root.child_by_field_name("name")
    skip = {name.id} if name is not None else set()
    out: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.id in skip or node.type in _COMMENTS:
            continue
        if node.type in _ANNOTATED:  # the marks go too, with or without an annotation: `x: int` is `x`
            skip.update(c.id for c in node.children if c.type in _ANNOTATION_MARKS)
            for field in _ANNOTATION_FIELDS:
                child = node.child_by_field_name(field)
                if child is not None:
                    skip.add(child.id)
        if node.child_count == 0:
            text = "".join(node.text.decode("utf-8", "replace").split())
            if text:
                out.append(text)
        stack.extend(reversed(node.children))
    # a trailing comma before a closing bracket is formatting (black adds it when it splits lines)
    return [t for t, after in zip(out, out[1:] + [""]) if not (t == "," and after in (")", "]", "}"))]
