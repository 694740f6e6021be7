"""Issue 14 items 1-2 gap: the search index keeps the text of the workspace's functions, classes and
Markdown sections (the chunks table, shown as search results and context). A secret in a workspace
file is masked there on the way in, as in a memory."""

import sysconfig
from pathlib import Path

from memory_lsp.memory.secrets import redact, redact_file_text
from secret_tokens import FAMILIES, leaked, tokens

TEMPLATES = [
    'def connect():\n    """Open the session."""\n    client = Client({!r})\n    return client\n',
    "def connect():\n    # the old key was: {}\n    return None\n",
    'class Config:\n    """Settings.\n\n    {}\n    """\n    retries = 3\n',
    "## Deploy\n\nThe release job uses {} for now.\n",
]


def test_file_text_redaction_catches_every_family_in_code_and_markdown():
    missed = []
    for family in FAMILIES:
        for i, (secret, text) in enumerate(tokens(family, 8, seed=7)):
            source = TEMPLATES[i % len(TEMPLATES)].format(text)
            out = redact_file_text(source)
            if leaked(secret, out) or "[REDACTED:" not in out:
                missed.append((family, source))
    assert missed == []


def test_file_text_redaction_equals_the_scanner_on_real_modules():
    # lines without a hint are skipped, so it must agree with a whole-text redact() where it matters
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in ("smtplib.py", "netrc.py", "urllib/request.py", "base64.py", "hmac.py", "secrets.py"):
        text = (stdlib / name).read_text(encoding="utf-8")
        assert redact_file_text(text) == redact(text), name


def test_the_index_keeps_no_secret_of_a_workspace_file(tmp_path, index_files):
    planted = [tokens(family, 1, seed=3)[0] for family in FAMILIES]
    files = {f"pkg/mod{i}.py": TEMPLATES[i % 3].format(text) for i, (_, text) in enumerate(planted)}
    files["CLAUDE.md"] = "".join(TEMPLATES[3].format(text) for _, text in planted)
    ws = index_files(tmp_path, files)
    try:
        texts = [r[0] for r in ws.store.cursor().execute("SELECT text FROM chunks").fetchall()]
        assert len(texts) >= len(planted)
        joined = "\n".join(texts)
        assert [s for s, _ in planted if leaked(s, joined)] == []
        assert joined.count("[REDACTED:") >= len(planted)  # the CLAUDE.md alone holds each once
        # what a user meets: the search results and their text
        hits = ws.search("deploy release job key", k=50)
        shown = repr(hits)
        assert "[REDACTED:" in shown
        assert [s for s, _ in planted if leaked(s, shown)] == []
    finally:
        ws.close()
