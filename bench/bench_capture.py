"""Capture on labelled coding sessions (issue 15, item 4): precision, recall and type agreement.

Each session in bench/capture_sessions.json (and in capture_sessions_heldout.json, written after the
patterns and never used to tune them) is a list of (role, text) turns and the user sentences
worth keeping, each with the type it should get. The transcript is rendered as an agent would pass
it ("User: ...", "Assistant: ...") and captured with no existing memories. A captured candidate is
right when it contains one keep item's text; every other candidate is a false positive.

    python bench/bench_capture.py [--verbose]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from memory_lsp.memory.capture import capture

SESSIONS = Path(__file__).resolve().parent / "capture_sessions.json"
HELD_OUT = Path(__file__).resolve().parent / "capture_sessions_heldout.json"  # written after the patterns


def transcript(turns: list[list[str]]) -> str:
    return "\n".join(f"{role.capitalize()}: {text}" for role, text in turns)


def score(sessions: list[dict], verbose: bool = False) -> dict:
    kept = right = found = expected = typed = 0
    for s in sessions:
        got = capture(transcript(s["turns"]), [])
        hits: set[int] = set()
        for c in got:
            match = next((i for i, (key, _) in enumerate(s["keep"]) if key.casefold() in c.text.casefold()), None)
            if match is not None and match not in hits:
                hits.add(match)
                right += 1
                typed += c.type == s["keep"][match][1]
            elif verbose:
                print(f"  FP  {s['name']}: [{c.type}] {c.text}")
        kept += len(got)
        found += len(hits)
        expected += len(s["keep"])
        if verbose:
            for i, (key, kind) in enumerate(s["keep"]):
                if i not in hits:
                    print(f"  FN  {s['name']}: [{kind}] {key}")
    return {"sessions": len(sessions), "expected": expected, "captured": kept,
            "precision": round(right / kept, 3) if kept else 0.0,
            "recall": round(found / expected, 3) if expected else 0.0,
            "type_agreement": round(typed / right, 3) if right else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    sessions = json.loads(SESSIONS.read_text())["sessions"]
    result = score(sessions, args.verbose)
    result["held_out"] = score(json.loads(HELD_OUT.read_text())["sessions"], args.verbose)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        for s in sessions:
            capture(transcript(s["turns"]), [])
        times.append(time.perf_counter() - t)
    result["median_ms_all_sessions"] = round(statistics.median(times) * 1000, 2)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
