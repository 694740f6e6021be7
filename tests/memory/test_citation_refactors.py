"""Citations that survive refactors (issue 15 item 3), on code shaped like Flask's own releases:
annotations and comments are no change, a rename re-anchors, code that moved to another file and
changed is found there (drifted, not orphaned), and a same-named stranger is not taken for it.
The full release-history suite is bench/bench_citations.py over real wheels."""

import pytest

from memory_lsp.workspace import Workspace

# flask 2.2.5 sessions.py / blueprints.py, cut down (Flask: BSD-3-Clause, Pallets); the edits below
# are the ones 2.3.3 and 3.0.3 made to them
SESSIONS = '''import typing as t


class SessionInterface:
    def make_null_session(self, app: "Flask") -> "NullSession":
        """Creates a null session which acts as a replacement object if the
        real session support could not be loaded due to a configuration
        error."""
        return self.null_session_class()

    def get_cookie_name(self, app: "Flask") -> str:
        return app.config["SESSION_COOKIE_NAME"]
'''
BLUEPRINTS = '''class Blueprint:
    def register(self, app, options: dict) -> None:
        name_prefix = options.get("name_prefix", "")
        self_name = options.get("name", self.name)
        name = f"{name_prefix}.{self_name}".lstrip(".")
        if name in app.blueprints:
            raise ValueError(f"The name '{self_name}' is already registered.")
        first_bp_registration = not any(bp is self for bp in app.blueprints.values())
        app.blueprints[name] = self
        self._got_registered_once = True
        state = self.make_setup_state(app, options, first_bp_registration)
        for deferred in self.deferred_functions:
            deferred(state)
'''
OTHER = '''def __getattr__(name):
    if name == "__version__":
        import importlib.metadata
        return importlib.metadata.version("flask")
    raise AttributeError(name)
'''


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "flask" / "sansio").mkdir(parents=True)
    (tmp_path / "flask" / "sessions.py").write_text(SESSIONS)
    (tmp_path / "flask" / "blueprints.py").write_text(BLUEPRINTS)
    (tmp_path / "flask" / "__init__.py").write_text(OTHER)
    ws = Workspace.open(tmp_path)
    ws.index(workers=0)
    yield ws
    ws.close()


def cite(ws, spec):
    return ws.book.teach(f"a note about {spec}", "gotcha", cite=[spec]).memory.id


def after(ws, mid):
    ws.index(workers=0)
    ws.sync_memories(code_changed=True)
    (m,) = [m for m in ws.memories(include_retired=True) if m.id == mid]
    c = m.citations[0]
    return c.state, c.current and f"{c.current['path']}::{c.current['symbol']}"


def test_annotations_comments_and_docstring_whitespace_are_no_change(ws):
    mid = cite(ws, "flask/sessions.py::SessionInterface.make_null_session")
    (ws.root / "flask" / "sessions.py").write_text(SESSIONS.replace(
        'def make_null_session(self, app: "Flask") -> "NullSession":',
        "def make_null_session(self, app: Flask) -> NullSession:  # type: ignore[override]").replace(
        "real session support could not be loaded due to a configuration\n        error.",
        "real session support could not be loaded due to a\n        configuration error."))
    assert after(ws, mid) == ("valid", "flask/sessions.py::SessionInterface.make_null_session")


def test_strict_setting_makes_them_count(ws, monkeypatch):
    mid = cite(ws, "flask/sessions.py::SessionInterface.get_cookie_name")
    (ws.root / "flask" / "sessions.py").write_text(SESSIONS.replace('app: "Flask") -> str:', "app: Flask) -> str:"))
    monkeypatch.setenv("MEMORY_LSP_STRICT_CITATIONS", "1")
    assert after(ws, mid)[0] == "drifted"
    monkeypatch.delenv("MEMORY_LSP_STRICT_CITATIONS")
    assert after(ws, mid)[0] == "valid"


def test_a_rename_with_the_same_body_re_anchors(ws):
    mid = cite(ws, "flask/sessions.py::SessionInterface.get_cookie_name")
    (ws.root / "flask" / "sessions.py").write_text(SESSIONS.replace("def get_cookie_name(", "def cookie_name("))
    assert after(ws, mid) == ("valid", "flask/sessions.py::SessionInterface.cookie_name")


def test_moved_to_another_file_and_changed_is_drifted_there(ws):
    mid = cite(ws, "flask/blueprints.py::Blueprint.register")
    (ws.root / "flask" / "blueprints.py").write_text("from .sansio.blueprints import Blueprint as SansioBlueprint\n\n\n"
                                                     "class Blueprint(SansioBlueprint):\n    pass\n")
    moved = BLUEPRINTS.replace("def register(self, app, options: dict)", "def register(self, app: App, options: dict)")
    moved = moved.replace("        for deferred in self.deferred_functions:\n            deferred(state)\n",
                          "        if first_bp_registration:\n            self._merge_blueprint_funcs(app, name)\n"
                          "        for deferred in self.deferred_functions:\n            deferred(state)\n")
    (ws.root / "flask" / "sansio" / "blueprints.py").write_text(moved)
    assert after(ws, mid) == ("drifted", "flask/sansio/blueprints.py::Blueprint.register")


def test_gone_stays_orphaned_even_with_a_namesake_elsewhere(ws):
    (ws.root / "flask" / "globals.py").write_text('''def __getattr__(name):
    if name == "_app_ctx_stack":
        import warnings
        warnings.warn("'_app_ctx_stack' is deprecated.", DeprecationWarning, stacklevel=2)
        return __app_ctx_stack
    raise AttributeError(name)
''')
    ws.index(workers=0)
    mid = cite(ws, "flask/globals.py::__getattr__")
    (ws.root / "flask" / "globals.py").write_text("from contextvars import ContextVar\n\n_cv_app = ContextVar('flask.app_ctx')\n")
    assert after(ws, mid) == ("orphaned", None)
