"""memory-lsp consolidate: near-duplicates proposed for merge, contradictions for supersede, and
nothing written until a proposal is accepted (real embedder, real event log)."""

import json

import pytest

from memory_lsp.commands import run
from memory_lsp.errors import UserError
from memory_lsp.workspace.offline import OfflineWorkspace

FILES = {"lib/client.py": "def fetch(url):\n    return url\n\n\ndef close():\n    return None\n"}


def teach(ws, text, type_="gotcha", cite=()):
    return run(ws, "memory.teach", {"text": text, "type": type_, "cite": list(cite)})["id"]


def test_proposals_then_apply_writes_superseded_events(tmp_path, write_files):
    ws = OfflineWorkspace(write_files(tmp_path, FILES))
    env_a = teach(ws, "Never commit .env files to the repository.", "policy")
    env_b = teach(ws, "Do not commit .env files into the repo.", "policy")
    teach(ws, "Always use pathlib.", "preference")
    teach(ws, "Never use pathlib.", "preference")  # close vectors, opposite rules: not a duplicate
    old = teach(ws, "fetch retries the request when the server answers 503.", cite=["lib/client.py::fetch"])
    new = teach(ws, "fetch does not retry the request when the server answers 503.", cite=["lib/client.py::fetch"])
    teach(ws, "close does not retry anything.", cite=["lib/client.py::close"])
    t30 = teach(ws, "The timeout of fetch is 30 seconds.", "fact", cite=["lib/client.py::fetch"])
    t60 = teach(ws, "The timeout of fetch is 60 seconds.", "fact", cite=["lib/client.py::fetch"])

    listed = run(ws, "memory.consolidate", {})
    assert listed["similarity"] == "embedding" and listed["applied"] == []
    got = {(p["kind"], p["keep"], tuple(p["retire"])) for p in listed["proposals"]}
    assert got == {("merge", env_a, (env_b,)), ("supersede", new, (old,)), ("supersede", t60, (t30,))}
    assert run(ws, "memory.consolidate", {})["proposals"] == listed["proposals"]  # stable ids
    log = tmp_path / ".memory" / "events.jsonl"
    before = log.read_text()

    merge = next(p["id"] for p in listed["proposals"] if p["kind"] == "merge")
    with pytest.raises(UserError, match="no proposal 'nosuch'"):
        run(ws, "memory.consolidate", {"apply": [merge, "nosuch"]})
    assert log.read_text() == before  # a bad id writes nothing

    done = run(ws, "memory.consolidate", {"apply": [merge]})
    assert done["applied"] == [merge] and len(done["proposals"]) == 2
    events = [json.loads(line) for line in log.read_text().splitlines()[len(before.splitlines()):]]
    assert [(e["kind"], e["memory"], e["by"]) for e in events] == [("memory.superseded", env_b, env_a)]
    live = {m["id"] for m in run(ws, "memory.memories", {})["memories"]}
    assert env_b not in live and env_a in live
    assert run(ws, "memory.consolidate", {})["proposals"] == done["proposals"]


def test_nothing_to_consolidate(tmp_path, write_files):
    ws = OfflineWorkspace(write_files(tmp_path, FILES))
    assert run(ws, "memory.consolidate", {})["proposals"] == []
    teach(ws, "fetch returns the URL unchanged.", cite=["lib/client.py::fetch"])
    teach(ws, "close returns nothing.", cite=["lib/client.py::close"])
    assert run(ws, "memory.consolidate", {})["proposals"] == []
