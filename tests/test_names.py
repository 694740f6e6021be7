"""The graph's names table (graph/names.py): `ids` of a column equals `get` one name at a time,
for loaded names, names added after the load, names it does not hold, repeats and non-ASCII."""

import random

import numpy as np

from memory_lsp.graph.names import Names


def test_ids_of_a_column_equal_get_of_each_name():
    rng = random.Random(5)
    loaded = sorted({f"pkg{rng.randrange(40)}/m{rng.randrange(300)}.py::C{rng.randrange(9)}.f{i}" for i in range(3000)}
                    | {"a.py::ünïcode", "b.py::名前", ""})
    names = Names("".join(loaded), np.array([len(n.encode()) for n in loaded], dtype=np.int64))
    names.intern(["new.py::added", "new.py::ünïcode2"])
    pool = loaded + ["new.py::added", "new.py::ünïcode2", "missing.py::x", "a.py::ünïcod"]
    column = [rng.choice(pool) for _ in range(20_000)]  # repeats
    got = names.ids(column)
    assert got.tolist() == [names.get(v, -1) for v in column]
    assert (got >= 0).sum() > 15_000 and -1 in got.tolist()
    assert names.ids(pool).tolist() == [names.get(v, -1) for v in pool]  # no repeats
    assert names.ids([]).tolist() == []
    empty = Names("", np.zeros(0, dtype=np.int64))
    assert empty.ids(["x"]).tolist() == [-1]
