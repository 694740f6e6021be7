"""The memory commands as a user runs them: teach, memories, forget, feedback, approve, pin,
capture, import, export; while another process owns the index; git-mined couplings."""

import json
import subprocess
import sys

import pytest


FILES = {
    "billing/__init__.py": "",
    "billing/invoice.py": "def total(lines):\n    return sum(l.amount for l in lines)\n\n\nclass Invoice:\n"
                          "    def render(self):\n        return 'invoice'\n",
    "billing/tax.py": "RATE = 0.2\n\ndef tax(amount):\n    return amount * RATE\n",
}


def cli(*args, stdin=None):
    return subprocess.run([sys.executable, "-m", "memory_lsp", *args], capture_output=True, text=True,
                          input=stdin, timeout=120)


def ok(*args, stdin=None):
    done = cli(*args, stdin=stdin)
    assert done.returncode == 0, done.stderr
    return done


def teach(root, *args):
    return json.loads(ok("teach", "-w", str(root), "--json", *args).stdout)


def listed(root, *args):
    return json.loads(ok("memories", "-w", str(root), "--json", *args).stdout)["memories"]


@pytest.fixture
def root(tmp_path, write_files):
    root = write_files(tmp_path, FILES)
    ok("index", str(root))
    return root


def test_teach_prints_the_id_and_memories_lists_it_with_citation_state(root):
    done = ok("teach", "-w", str(root), "totals are in cents, never floats", "--type", "gotcha",
              "--cite", "billing/invoice.py::total", "--tag", "money")
    mid = done.stdout.strip()
    assert len(mid) == 26
    (m,) = listed(root)
    assert (m["id"], m["type"], m["priority"], m["source"], m["tags"]) == (mid, "gotcha", "high", "user_taught", ["money"])
    assert m["citations"][0]["symbol"] == "total" and m["citations"][0]["state"] == "valid"
    text = ok("memories", "-w", str(root)).stdout
    assert mid in text and "cites billing/invoice.py::total:1-2  valid" in text
    assert listed(root, "--file", "billing/invoice.py")[0]["id"] == mid
    assert listed(root, "--file", "billing/tax.py") == []
    assert listed(root, "--type", "policy") == []


def test_teaching_the_same_text_twice_writes_once(root):
    a = teach(root, "use Decimal for money", "--type", "policy")
    b = teach(root, "  Use decimal\tfor   MONEY ", "--type", "policy")  # only whitespace and case differ
    assert a["created"] and not b["created"] and a["id"] == b["id"]
    assert len(listed(root)) == 1
    c = teach(root, "Use Decimal for money.", "--type", "policy")  # any other difference is a new memory
    assert c["created"] and c["similar"] == [a["id"]]
    assert len(listed(root)) == 2


@pytest.mark.parametrize("args, message", [
    (["x", "--type", "rumour"], "invalid choice: 'rumour'"),
    (["   ", "--type", "fact"], "a memory needs some text"),
    (["x", "--type", "fact", "--cite", "../elsewhere.py"], "outside the workspace"),
    (["x", "--type", "fact", "--cite", "billing/tax.py::nope"], "no symbol nope in billing/tax.py"),
    (["x", "--type", "fact", "--scope", "/etc/*"], "workspace-relative glob"),
    (["x", "--type", "fact", "--priority", "urgent"], "unknown priority 'urgent'"),
])
def test_bad_teach_input_is_one_line_exit_2_and_writes_nothing(root, args, message):
    done = cli("teach", "-w", str(root), *args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr
    assert not (root / ".memory" / "events.jsonl").exists()


def test_a_secret_is_refused_or_redacted_and_never_reaches_the_log(root):
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"
    done = cli("teach", "-w", str(root), f"deploy uses {token} for the registry", "--type", "fact")
    assert done.returncode == 2 and "github" in done.stderr.lower() and "column 13" in done.stderr
    assert not (root / ".memory" / "events.jsonl").exists()
    m = teach(root, f"deploy uses {token} for the registry", "--type", "fact", "--redact")
    assert token not in m["memory"]["text"] and "[REDACTED" in m["memory"]["text"]
    assert token not in (root / ".memory" / "events.jsonl").read_text()


def test_invisible_characters_are_stripped_on_write(root):
    m = teach(root, "run\u200b migrations\u202e first\U000e0041", "--type", "workflow_recipe")
    assert m["memory"]["text"] == "run migrations first"


def test_forget_feedback_approve_pin_and_the_past(root):
    a = teach(root, "tax rate lives in billing/tax.py", "--type", "fact", "--source", "agent_explicit")["id"]
    assert listed(root)[0]["needs_review"] is True
    ok("approve", "-w", str(root), a[-6:])  # a unique suffix is enough
    assert listed(root)[0]["needs_review"] is False
    ok("feedback", "-w", str(root), a, "useful")
    m = listed(root)[0]
    assert m["feedback"]["useful"] == 1 and m["confidence"] == pytest.approx(0.9)
    ok("feedback", "-w", str(root), a, "wrong")
    assert listed(root)[0]["confidence"] == pytest.approx(0.27)
    ok("pin", "-w", str(root), a)
    assert listed(root)[0]["pinned"] is True
    before = listed(root)[0]["created"]
    ok("forget", "-w", str(root), a, "--reason", "moved to settings")
    assert listed(root) == []
    (gone,) = listed(root, "--all")
    assert gone["valid_to"] and gone["invalid_reason"] == "moved to settings"
    assert [m["id"] for m in listed(root, "--at", before)] == [a]  # what was valid then
    done = cli("forget", "-w", str(root), a, "--reason", "again")
    assert done.returncode == 2 and "already retired" in done.stderr
    done = cli("feedback", "-w", str(root), "nosuchid", "useful")
    assert done.returncode == 2 and "no memory 'nosuchid'" in done.stderr


def test_capture_stores_preferences_corrections_constraints_unreviewed(root):
    transcript = ("User: hi there, how are you\n"
                  "User: I prefer pytest fixtures over setUp methods.\n"
                  "Assistant: sure\n"
                  "User: Actually, the tax module is billing/tax.py, not billing/vat.py.\n"
                  "User: You must not call the payment API from tests.\n")
    out = json.loads(ok("capture", "-w", str(root), "--json", stdin=transcript).stdout)["captured"]
    assert sorted(c["pattern"] for c in out) == ["constraint", "correction", "preference"]
    memories = {m["type"]: m for m in listed(root)}
    assert set(memories) == {"preference", "fact", "policy"}
    assert all(m["needs_review"] and m["source"] == "observer_inferred" for m in memories.values())
    again = json.loads(ok("capture", "-w", str(root), "--json", stdin=transcript).stdout)["captured"]
    assert all(not c.get("created", False) for c in again)  # nothing new the second time
    assert len(listed(root)) == 3


def test_import_rules_files_idempotently_and_retire_removed_rules(root):
    (root / "CLAUDE.md").write_text("# Conventions\n\n- Never use floats for money.\n"
                                    "- Prefer small pure functions in billing.\n")
    (root / ".cursorrules").write_text("Always run the tests before committing.\n")
    first = json.loads(ok("import", "-w", str(root), "--json").stdout)
    assert sorted(first["files"]) == [".cursorrules", "CLAUDE.md"] and len(first["created"]) == 3
    m = {x["text"]: x for x in listed(root)}
    assert m["Never use floats for money."]["type"] == "policy"
    assert m["Never use floats for money."]["provenance"] == {"path": "CLAUDE.md", "line": 3}
    assert m["Never use floats for money."]["source"] == "imported"
    again = json.loads(ok("import", "-w", str(root), "--json").stdout)
    assert again["created"] == [] and again["unchanged"] == 3
    (root / "CLAUDE.md").write_text("# Conventions\n\n- Never use floats for money.\n")
    third = json.loads(ok("import", "-w", str(root), "--json").stdout)
    assert len(third["retired"]) == 1 and len(listed(root)) == 2


def test_export_formats_and_json_round_trip_into_a_fresh_clone(root, tmp_path_factory, write_files):
    teach(root, "totals are in cents", "--type", "gotcha", "--cite", "billing/invoice.py::total")
    teach(root, "never call the payment API from tests", "--type", "policy", "--pin")
    exported = json.loads(ok("export", "-w", str(root), "--format", "json").stdout)
    assert exported["format"] == "memory-lsp/1" and len(exported["memories"]) == 2
    markdown = ok("export", "-w", str(root), "--format", "markdown").stdout
    assert "totals are in cents" in markdown and "billing/invoice.py" in markdown

    (root / "CLAUDE.md").write_text("# Project\n\nHand-written notes.\n")
    ok("export", "-w", str(root), "--format", "agents", "-o", str(root / "CLAUDE.md"))
    ok("export", "-w", str(root), "--format", "agents", "-o", str(root / "CLAUDE.md"))  # replaced, not added
    claude = (root / "CLAUDE.md").read_text()
    assert claude.startswith("# Project\n\nHand-written notes.")
    assert claude.count("<!-- memory-lsp:begin -->") == 1 and "never call the payment API" in claude
    assert json.loads(ok("import", "-w", str(root), "--json").stdout)["created"] == []  # our block is not re-imported

    clone = write_files(tmp_path_factory.mktemp("clone"), FILES)
    (clone / "export.json").write_text(json.dumps(exported))
    ok("index", str(clone))
    assert len(json.loads(ok("import", "-w", str(clone), "export.json", "--json").stdout)["created"]) == 2
    back = {m["text"]: m for m in listed(clone)}
    original = {m["text"]: m for m in exported["memories"]}
    assert set(back) == set(original)
    for text, m in back.items():
        for key in ("type", "priority", "pinned", "tags", "scope"):
            assert m[key] == original[text][key]
        assert [c["symbol"] for c in m["citations"]] == [c["symbol"] for c in original[text]["citations"]]


def test_cli_writes_and_reads_while_another_process_owns_the_index(root):
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from memory_lsp.workspace import Workspace; "
         "ws = Workspace.open(sys.argv[1]); print('ready', flush=True); time.sleep(60)", str(root)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        busy = cli("impact", "-w", str(root), "billing/tax.py")
        assert busy.returncode == 2 and "in use by another memory-lsp process" in busy.stderr
        m = teach(root, "tax() rounds half up", "--type", "gotcha", "--cite", "billing/tax.py::tax")
        done = ok("memories", "-w", str(root), "--json")
        assert "in use by another memory-lsp process" in done.stderr
        (shown,) = json.loads(done.stdout)["memories"]
        assert shown["id"] == m["id"] and shown["citations"][0]["state"] == "valid"
    finally:
        holder.kill()
        holder.wait()


def test_git_mined_couplings_become_causal_dependency_memories(tmp_path, write_files):
    root = write_files(tmp_path, {"a.py": "x = 0\n", "b.py": "y = 0\n", "c.py": "z = 0\n"})
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@e"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    for i in range(6):
        (root / "a.py").write_text(f"x = {i}\n")
        (root / "b.py").write_text(f"y = {i}\n")
        if i == 0:
            (root / "c.py").write_text("z = 1\n")
        subprocess.run(git + ["add", "-A"], check=True)
        subprocess.run(git + ["commit", "-q", "-m", f"change {i}"], check=True)
    ok("index", str(root))
    mined = [m for m in listed(root) if m["source"] == "git_mined"]
    assert sorted(m["text"] for m in mined) == [
        "a.py is usually changed with b.py: 6 of 6 commits that touch a.py also touch b.py",
        "b.py is usually changed with a.py: 6 of 6 commits that touch b.py also touch a.py"]
    assert all(m["type"] == "causal_dependency" for m in mined)
    ok("index", str(root))  # refreshed, not duplicated
    assert len([m for m in listed(root) if m["source"] == "git_mined"]) == 2
    ok("feedback", "-w", str(root), mined[0]["id"], "wrong")  # verdicts on mined memories are kept
    (again,) = [m for m in listed(root) if m["id"] == mined[0]["id"]]
    assert again["feedback"]["wrong"] == 1


def test_doctor_reports_a_torn_line_and_reading_still_works(root):
    m = teach(root, "invoices are immutable once sent", "--type", "decision")
    with open(root / ".memory" / "events.jsonl", "a") as f:
        f.write('{"v":1,"id":"01KILLED","ts":"2026-11-')
    assert [x["id"] for x in listed(root)] == [m["id"]]
    report = json.loads(ok("doctor", "-w", str(root), "--json").stdout)["memory_log"]
    assert report["torn_tail"] and report["events"] == 1 and "torn last line" in report["skipped_lines"][0]
    assert "last line torn" in ok("doctor", "-w", str(root)).stdout
    teach(root, "tax is computed per line", "--type", "fact")  # the next writer moves the fragment aside
    report = json.loads(ok("doctor", "-w", str(root), "--json").stdout)["memory_log"]
    assert not report["torn_tail"] and report["events"] == 2 and len(report["quarantined"]) == 1


def test_scoped_memories_apply_to_matching_files(root):
    teach(root, "money code avoids floats", "--type", "policy", "--scope", "billing/*.py")
    teach(root, "tax and invoice share rounding", "--type", "gotcha", "--scope", "billing/tax.py,billing/invoice.py")
    assert len(listed(root, "--file", "billing/invoice.py")) == 2
    assert len(listed(root, "--file", "billing/__init__.py")) == 1


def test_edit_changes_text_type_and_citations_and_keeps_history(root):
    mid = teach(root, "tax is rounded per invoise", "--type", "fact")["id"]
    ok("edit", "-w", str(root), mid, "--text", "tax is rounded per invoice", "--type", "gotcha",
       "--cite", "billing/tax.py::tax")
    (m,) = listed(root)
    assert (m["text"], m["type"], m["priority"], m["citations"][0]["symbol"]) == (
        "tax is rounded per invoice", "gotcha", "high", "tax")
    kinds = [json.loads(line)["kind"] for line in (root / ".memory" / "events.jsonl").read_text().splitlines()]
    assert kinds == ["memory.created", "memory.edited"]
    done = cli("edit", "-w", str(root), mid)
    assert done.returncode == 2 and "nothing to change" in done.stderr
