"""Issue 14 item 3: a correction is never dropped as a duplicate of what it corrects; only texts
equal after whitespace and case normalisation are the same memory."""

import json
import subprocess
import sys

import pytest

PAIRS = [
    ("retry only if status >= 500", "retry only if status < 500"),
    ("a == b holds after normalise()", "a != b holds after normalise()"),
    ("C++ needs -O2 for the benchmarks", "C needs -O2 for the benchmarks"),
    ("the cold start takes 1.5 s", "the cold start takes 1,5 s"),
]


def teach(root, text):
    done = subprocess.run([sys.executable, "-m", "memory_lsp", "teach", "-w", str(root), text, "--type", "fact",
                           "--json"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("first,second", PAIRS)
def test_a_correction_is_a_new_memory_and_the_near_duplicate_is_named(tmp_path, first, second):
    a, b = teach(tmp_path, first), teach(tmp_path, second)
    assert a["created"] and b["created"] and a["id"] != b["id"]
    assert b["memory"]["text"] == second
    if "1,5" not in second:  # lexically the same words: suggested, never merged
        assert b["similar"] == [a["id"]]
    again = teach(tmp_path, "  " + second.upper().replace(" ", "\t ") + " ")
    assert not again["created"] and again["id"] == b["id"]  # whitespace and case only: the same memory
