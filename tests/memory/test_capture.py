"""Auto-capture: seed 004 patterns pick sentences, the seed 002 importance score keeps them."""

import pytest

from memory_lsp.memory.capture import capture, lexical_similarity, salience, split_sentences

TRANSCRIPT = """User: I prefer `ruff` over flake8 for linting.
Assistant: Noted, I'll switch the config over.


User: Actually, the staging database listens on port 5433.
> No, the settings live in config/settings.toml, e.g. the `db.url` key.
User: You must run the migrations before the test suite.
User: thanks, that looks great!
"""


def test_each_pattern_fires_with_its_type_and_priority():
    got = [(c.text, c.type, c.priority, c.pattern) for c in capture(TRANSCRIPT, [])]
    assert got == [
        ("I prefer `ruff` over flake8 for linting.", "preference", "medium", "preference"),
        ("the staging database listens on port 5433.", "fact", "high", "correction"),
        ("the settings live in config/settings.toml, e.g. the `db.url` key.", "fact", "high", "correction"),
        ("You must run the migrations before the test suite.", "policy", "critical", "constraint"),
    ]


@pytest.mark.parametrize("sentence, pattern", [
    ("We prefer small pull requests.", "preference"),
    ("Always use `uv` to add dependencies.", "preference"),
    ("Never use print for logging.", "preference"),
    ("I hate long fixture chains.", "preference"),
    ("Not the unit tests but the smoke tests run on deploy.", "correction"),
    ("That's wrong, the cache is per process.", "correction"),
    ("Call the service layer instead.", "correction"),
    ("Secrets are required to come from the vault.", "constraint"),
    ("Don't ever force-push the release branch.", "constraint"),
    ("Never deploy on a Friday afternoon.", "constraint"),
    ("Writing to the shared volume is forbidden.", "constraint"),
    ("Actually, you must not bump the schema version by hand.", "constraint"),
])
def test_patterns(sentence, pattern):
    [c] = capture(sentence, [])
    assert c.pattern == pattern


def test_chit_chat_yields_nothing():
    assert capture("User: hi there!\nAssistant: Hello, how can I help today?\nUser: thanks, bye.", []) == []


def test_scores_follow_seed_002():
    [pref, port, conf, must] = capture(TRANSCRIPT, [])
    # backticks (identifier and technical term) + preference signal; "flake8" is no number
    assert (pref.salience, pref.novelty, pref.importance) == (0.8, 1.0, 0.92)
    assert (port.salience, port.importance) == (0.2, 0.68)  # a number only
    assert (conf.salience, conf.importance) == (0.4, 0.76)  # identifier + dotted name
    assert (must.salience, must.importance) == (0.0, 0.6)   # novelty alone carries it
    assert salience("Ask Maria about the 2024-03 outage in the billing_jobs table.") == 0.5  # name + number


def test_a_known_memory_is_rejected_by_novelty():
    known = ["You must run the migrations before the test suite."]
    text = "User: you must run the migrations before the test suite!"
    assert capture(text, known) == []
    [c] = capture(text, known, threshold=0.0)
    assert (c.novelty, c.salience, c.importance) == (0.0, 0.0, 0.0)
    # half similar: novelty 0.5, importance 0.3 is kept at the threshold
    [half] = capture(text, known, similarity=lambda a, b: 0.5)
    assert (half.novelty, half.importance) == (0.5, 0.3)


def test_role_prefixes_and_quotes_are_stripped():
    assert split_sentences("User: Never use pip. Use uv.\nASSISTANT:  ok\n> > human: fine, e.g. this one.") == [
        "Never use pip.", "Use uv.", "ok", "fine, e.g. this one."]
    assert split_sentences("Note:\n```\n# never use this\n```\n  \r\n\n\nDone.") == ["Note:", "Done."]


def test_duplicates_within_one_input_collapse():
    text = "User: Never use pip for installs.\nUser: never  use PIP for installs.\nUser: I always use uv for installs."
    assert [c.text for c in capture(text, [])] == ["Never use pip for installs.", "I always use uv for installs."]


def test_a_correction_within_one_input_is_not_a_duplicate():
    text = "User: you must retry only if status >= 500.\nUser: no, you must retry only if status < 500."
    assert [c.text for c in capture(text, [])] == ["you must retry only if status >= 500.",
                                                    "no, you must retry only if status < 500."]


def test_lexical_similarity():
    assert lexical_similarity("Use uv for installs", "use UV for installs!") == pytest.approx(1.0)
    assert lexical_similarity("the cat", "a cat") == pytest.approx(1.0)  # stop words do not count
    assert lexical_similarity("deploy on Friday", "rotate the keys") == 0.0
    assert lexical_similarity("", "anything") == 0.0
    assert lexical_similarity("uv installs packages", "uv installs fast") == pytest.approx(2 / 3)
