"""Calls in a Python def's header run where the def statement runs: a parameter's default or
annotation and the return annotation are evaluated in the scope around the def (at import, for a
module-level def), not when the function is called. `def main(name: Annotated[str,
typer.Argument()])` calls `Argument` when its module is imported, so a test that imports the module
runs it. Such a call stays the function's too: what breaks when `Argument` changes includes `main`."""

from __future__ import annotations


def header_end(def_node) -> int:
    """Where the header of definition `def_node` ends: its body's start for a Python function, else
    its start (a class's bases are the class's own)."""
    if def_node.type != "function_definition":
        return def_node.start_byte
    body = def_node.child_by_field_name("body")
    return body.start_byte if body is not None else def_node.start_byte
