"""Issue 14 item 1: a secret of every family is refused (or redacted) wherever text enters, and
none reaches events.jsonl, an export or the context output. A few tokens per family here;
bench/bench_secrets.py runs >= 30 per family and the stdlib false-positive count."""

import json
import subprocess
import sys

import pytest

from memory_lsp.errors import UserError
from memory_lsp.memory.book import MemoryBook
from memory_lsp.memory.secrets import scan
from secret_tokens import FAMILIES, leaked, tokens

CASES = [(family, secret, text) for family in FAMILIES for secret, text in tokens(family, 3, seed=1)]


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


def log_text(root) -> str:
    path = root / ".memory" / "events.jsonl"
    return path.read_text(encoding="utf-8") if path.exists() else ""


@pytest.mark.parametrize("family,secret,text", CASES, ids=[f"{c[0]}-{i % 3}" for i, c in enumerate(CASES)])
def test_every_entry_point_refuses_or_redacts(tmp_path, family, secret, text):
    book = MemoryBook(tmp_path)
    with pytest.raises(UserError, match="refused"):
        book.teach(text, "fact")
    written = book.teach(text, "fact", redact=True)
    assert not leaked(secret, written.memory.text) and "[REDACTED:" in written.memory.text
    plain = book.teach("the deploy key lives in the vault", "fact").memory
    with pytest.raises(UserError, match="refused"):
        book.edit(book.load().memories, plain.id, text=text)
    captured = book.capture("Note. You must always use this: " + text + "\nWe prefer uv for installs.")
    # a one-line secret sits in the captured sentence; a key's lines are no sentence of their own
    assert any(isinstance(w, str) and "refused" in w for _c, w in captured) or "\n" in text
    assert not any(leaked(secret, c.text) for c, _w in captured)
    assert any(c.text == "We prefer uv for installs." and not isinstance(w, str) for c, w in captured)
    # a rule file is scanned whole before it is split: no line of a multi-line key gets in
    (tmp_path / "CLAUDE.md").write_text(f"# Rules\n\n- Always run the tests.\n- {text}\n\n- Never push to main on Fridays.\n",
                                        encoding="utf-8")
    report = book.import_rules()
    assert report.refused and {"Always run the tests.", "Never push to main on Fridays."} <= {m.text for m in report.created}
    assert not leaked(secret, log_text(tmp_path))


def test_export_and_context_never_print_a_secret_that_reached_the_log(tmp_path):
    """A secret merged in from another clone (no entry point saw it) stops at export and context."""
    (tmp_path / "app.py").write_text("def main():\n    return 1\n", encoding="utf-8")
    book = MemoryBook(tmp_path)
    secrets = [tokens(f, 1, seed=2)[0] for f in ("private-key", "slack", "anthropic", "azure-sas")]
    for _secret, text in secrets:  # as a union merge would bring them: straight into the log
        event = book.log.new_event("memory.created", "", type="policy", text=text, priority="high", confidence=1.0,
                                   tags=[], scope="global", source="user_taught", pinned=False,
                                   needs_review=False, citations=[], provenance=None)
        event["memory"] = event["id"]
        book.log.append(event)
    refused = cli("export", "-w", str(tmp_path), "--format", "json")
    assert refused.returncode == 2 and "contains a secret" in refused.stderr and refused.stdout == ""
    for fmt in ("json", "markdown", "agents"):
        out = cli("export", "-w", str(tmp_path), "--format", fmt, "--redact")
        assert out.returncode == 0, out.stderr
        assert not any(leaked(s, out.stdout) for s, _ in secrets)
    assert cli("index", str(tmp_path)).returncode == 0
    ctx = cli("context", "-w", str(tmp_path), "--budget", "4000", "--json")
    assert ctx.returncode == 0, ctx.stderr
    text = json.loads(ctx.stdout)["text"]
    assert text.count("[REDACTED:") >= len(secrets) and not any(leaked(s, text) for s, _ in secrets)


def test_the_cli_refuses_the_families_issue_14_found_stored(tmp_path):
    for family in ("slack", "anthropic", "huggingface", "twilio-auth-token", "twilio-api-key",
                   "azure-storage-key", "azure-sas"):
        secret, text = tokens(family, 1, seed=3)[0]
        done = cli("teach", "-w", str(tmp_path), text, "--type", "fact")
        assert done.returncode == 2 and "refused" in done.stderr, (family, done.stderr)
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    pem_secret, pem = tokens("private-key", 1, seed=3)[0]
    (tmp_path / "CLAUDE.md").write_text(f"# Keys\n\nThe deploy key:\n\n```\n{pem}\n```\n\n- Never commit keys.\n",
                                        encoding="utf-8")
    done = cli("import", "-w", str(tmp_path))
    assert done.returncode == 2 and "secret" in done.stdout
    assert not leaked(pem_secret, log_text(tmp_path))
    assert "Never commit keys." in log_text(tmp_path)


def test_a_generic_high_entropy_assignment_warns_but_is_stored(tmp_path):
    done = cli("teach", "-w", str(tmp_path), "staging cache_password = Zq8rT2wLm9Xv4Kp7", "--type", "fact")
    assert done.returncode == 0 and "possible secret kept" in done.stderr
    assert scan("staging cache_password = Zq8rT2wLm9Xv4Kp7")[0].severity == "warn"
