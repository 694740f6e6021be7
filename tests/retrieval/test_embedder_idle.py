"""The embedding model is unloaded once unused for a while (a server would otherwise keep ~150 MB
for the day after one search) and loads again, with the same vectors, when next asked."""

import time

import numpy as np

from memory_lsp.retrieval.embedder import Embedder

from waiting import wait_until


def test_an_idle_model_is_unloaded_and_comes_back_the_same():
    e = Embedder(unload_after=1.0)
    first = e.encode(["parse a json document", "the weather is sunny"])
    assert e.loaded
    assert wait_until(lambda: not e.loaded, 10)
    assert np.allclose(e.encode(["parse a json document", "the weather is sunny"]), first, atol=1e-6)
    assert e.loaded


def test_a_model_in_use_stays_loaded():
    e = Embedder(unload_after=2.0)
    for _ in range(6):  # used every 0.5 s, 3 s in all: never idle long enough
        e.encode(["a text"])
        time.sleep(0.5)
        assert e.loaded


def test_without_a_limit_the_model_stays():
    e = Embedder(unload_after=None)
    e.encode(["a text"])
    time.sleep(0.3)
    assert e.loaded and not e._idle.watching  # no thread waits to unload it
