"""Capture on the labelled sessions in bench/ (issue 15, item 4): the targets hold on both sets."""

import json
import sys
from pathlib import Path

import pytest

from memory_lsp.memory.capture import capture

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))

from bench_capture import score, transcript  # noqa: E402


@pytest.mark.parametrize("name", ["capture_sessions.json", "capture_sessions_heldout.json"])
def test_recall_and_precision_reach_the_targets(name):
    sessions = json.loads((BENCH / name).read_text())["sessions"]
    result = score(sessions)
    assert result["recall"] >= 0.7 and result["precision"] >= 0.8, result


def test_only_the_users_turns_unless_told():
    text = transcript([["user", "Let's add caching."],
                       ["assistant", "I'll never use Redis here; we must keep state in process."],
                       ["user", "Don't cache the auth responses,\nthey expire in 60 seconds."]])
    assert [c.text for c in capture(text, [])] == ["Don't cache the auth responses,"]
    every = [c.text for c in capture(text, [], roles=None)]
    assert every[0] == "I'll never use Redis here; we must keep state in process."


@pytest.mark.parametrize("sentence, kind", [
    ("Don't touch the generated client.", "policy"),
    ("Make sure the cache key includes the tenant.", "policy"),
    ("Use httpx for outgoing calls.", "preference"),
    ("I'd rather keep the handlers thin.", "preference"),
    ("We always squash merge.", "policy"),
    ("Never bump the schema version by hand.", "policy"),
    ("We tried gevent, it failed because the driver is not patched.", "dead_end"),
    ("No, the queue is FIFO per tenant.", "fact"),
    ("Please revert that, the old name is public API.", "fact"),
])
def test_common_forms(sentence, kind):
    [c] = capture("User: " + sentence, [])
    assert c.type == kind


@pytest.mark.parametrize("sentence", ["Can you never do that again?", "Don't worry about the docs.",
                                      "Thanks, looks good!", "Run the tests."])
def test_questions_and_asides_are_not_memories(sentence):
    assert capture("User: " + sentence, []) == []
