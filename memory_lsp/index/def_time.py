"""Calls in a Python def's header run where the def statement runs: a parameter's default or
annotation and the return annotation are evaluated in the scope around the def (at import, for a
module-level def), not when the function is called. `def main(name: Annotated[str,
typer.Argument()])` calls `Argument` when its module is imported, so a test that imports the module
runs it. Such a call stays the function's too: what breaks when `Argument` changes includes `main`."""

from __future__ import annotations


def in_header(def_node, pos: int) -> bool:
    """Whether byte `pos` lies in the header of the Python function `def_node` (before its body)."""
    if def_node.type != "function_definition":
        return False
    body = def_node.child_by_field_name("body")
    return body is not None and pos < body.start_byte
