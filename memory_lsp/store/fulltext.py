"""The BM25 index: its tables, kept up to date document by document, and its SQL.

One document per code chunk and per live memory. DuckDB's fts extension builds a static index,
so every code edit made the next search rebuild all of it (14-16 s at 11,282 files); these
tables are updated in place instead: the files whose content changed since the last update
(`bm25_sources` against `files`) and the memories whose text changed lose their documents and
get new ones, and the term statistics move by what was removed and added. The tokenizer,
stopwords, Porter stemmer and scoring are fts's own (k = 1.2, b = 0.75, base-10 log), so the
ranking is the one the extension gave.

Document ids (`docid`) only grow (meta `bm25_next_docid`): a process's in-memory copy of the
postings (retrieval/bm25.py) reads only the documents numbered since its last look, and sees
removed ones by their absence.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from memory_lsp.store.db import Store
from memory_lsp.store.search import IN_LIST, joined
from memory_lsp.store.stopwords import ENGLISH

TABLES = ("bm25_docs", "bm25_postings", "bm25_terms", "bm25_sources")
K1, B = 1.2, 0.75
NEXT_DOCID = "bm25_next_docid"
FILES_PER_GROUP = 500  # files whose documents are made in one statement (about 12,000 documents)
_STOPWORDS = " ".join(sorted(ENGLISH))
_STOP_LIST = "(SELECT unnest(string_split(?, ' ')))"


def tokenize(expr: str) -> str:
    """fts's tokenizer as SQL: lower case, accents stripped, split at runs of digits, punctuation
    and spaces (fts replaced the first two by spaces, then split at spaces: the same words in two
    passes over the text; one is faster)."""
    return ("string_split_regex(lower(strip_accents(CAST(" + expr + r""" AS VARCHAR))), """
            r"""'[0-9!@#$%^&*()_+={}\[\]:;<>,.?~\\/\|''''"`\s-]+')""")


# identifiers split: load_config -> load config, JSONDecoder -> JSON Decoder
SPLIT_NAME = "regexp_replace(c.name, '([a-z0-9])([A-Z])', '\\1 \\2', 'g')"
# what each document is searched as (a chunk: its name, the name split at case changes, its path
# and its text; a memory: its type, text, tags and what it cites)
_CODE_WORDS = f"c.name || ' ' || {SPLIT_NAME} || ' ' || c.path || ' ' || c.text"
_MEMORY_DOCS = """
    SELECT m.id, m.type || ' ' || m.text || ' ' || coalesce(m.tags, '') || ' ' ||
           coalesce((SELECT string_agg(x.path || ' ' || coalesce(x.symbol, ''), ' ')
                     FROM citations x WHERE x.memory_id = m.id), '') AS words
    FROM memories m WHERE m.valid_to IS NULL"""


# the files whose documents are missing or were made from another version of them (hash), and
# the files gone whose documents are left (hash NULL)
_CHANGED = """SELECT f.path, f.hash FROM files f LEFT JOIN bm25_sources s USING (path) WHERE s.hash IS DISTINCT FROM f.hash
              UNION ALL SELECT s.path, NULL FROM bm25_sources s ANTI JOIN files f USING (path)"""


def status(store: Store) -> dict:
    """What `memory-lsp doctor` says of the index: its documents, whether the next search brings
    it up to date first, and how many files that would take in."""
    cur = store.cursor()
    return {"documents": cur.execute("SELECT count(*) FROM bm25_docs").fetchone()[0],
            "up_to_date": is_current(store),
            "files_behind": cur.execute(f"SELECT count(*) FROM ({_CHANGED})").fetchone()[0]}


def is_current(store: Store, meta: dict[str, str] | None = None) -> bool:
    """No run or sync changed chunks or memories since the index was last brought up to date.
    `meta`: the meta table if the caller has just read it."""
    return (store.meta_all() if meta is None else meta).get("fts_dirty", "1") == "0"


def mark_dirty(store: Store) -> None:
    """The chunks or memories may have changed: the next search brings the index up to date."""
    store.set_meta("fts_dirty", "1")


def ensure_fts(store: Store, meta: dict[str, str] | None = None, should_stop=None) -> bool:
    """Bring the index up to date if the chunks or memories may have changed. -> did it change?
    `meta`: the meta table if the caller has just read it. `should_stop`: asked between groups of
    files, each committed on its own (a background build gives way to an edit; the next call goes
    on with the files left)."""
    if is_current(store, meta):
        return False
    changed = False
    with store.write_lock:
        groups = _changes(store)
        start = int(store.meta(NEXT_DOCID, "0"))  # the next document's id, carried from group to group
        for group in range(groups + 1):
            if should_stop is not None and should_stop():
                break
            with store.transaction() as cur:
                group_changed, start = _update_group(store, cur, group, start)
                changed |= group_changed
                done = "(SELECT path, hash FROM _bm25_paths WHERE grp = ?)"
                cur.execute(f"DELETE FROM bm25_sources WHERE path IN (SELECT path FROM {done})", [group])
                cur.execute(f"INSERT INTO bm25_sources SELECT path, hash FROM {done} WHERE hash IS NOT NULL", [group])
        else:
            store.set_meta("fts_dirty", "0")
        store.conn.execute("DROP TABLE _bm25_paths")
        store.conn.execute("DROP TABLE _bm25_memories")
        if changed:  # what searchers key their in-memory copies on (postings, file neighbours, memories)
            store.set_meta("fts_version", str(int(store.meta("fts_version", "0")) + 1))
    return changed


def _changes(store: Store) -> int:
    """The files changed or gone since their documents were made, in groups (a whole index's
    documents at once outgrow DuckDB's memory limit: 256 MB failed at 11,000 files), and the
    memories as they are (group 0 compares them). -> the last group's number."""
    cur = store.conn
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE _bm25_paths AS
        SELECT path, hash, (row_number() OVER (ORDER BY path) - 1) // {FILES_PER_GROUP} AS grp FROM ({_CHANGED})""")
    cur.execute(f"CREATE OR REPLACE TEMP TABLE _bm25_memories AS SELECT id, md5(words) AS hash, words FROM ({_MEMORY_DOCS})")
    return cur.execute("SELECT coalesce(max(grp), 0) FROM _bm25_paths").fetchone()[0]


def _update_group(store: Store, cur, group: int, start: int) -> tuple[bool, int]:
    """Replace the documents of one group of files (and, in group 0, of the memories), numbering
    the new ones from `start`. -> (did anything change, the next document's id)."""
    # two parts, not one OR: with the OR, the memories' test ran on every document (150 ms at 11,000 files)
    cur.execute("""CREATE OR REPLACE TEMP TABLE _bm25_old AS
        SELECT docid FROM bm25_docs WHERE kind = 'code' AND path IN (SELECT path FROM _bm25_paths WHERE grp = $1)
        UNION ALL
        SELECT d.docid FROM (SELECT * FROM bm25_docs WHERE kind = 'memory' AND $1 = 0) d
        ANTI JOIN _bm25_memories m ON m.id = d.id AND m.hash = d.hash""", [group])
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE _bm25_new AS
        SELECT $2 + row_number() OVER (ORDER BY kind, id) - 1 AS docid, * FROM (
            SELECT c.id, 'code' AS kind, c.path, NULL AS hash, {_CODE_WORDS} AS words
            FROM chunks c WHERE c.path IN (SELECT path FROM _bm25_paths WHERE grp = $1)
            UNION ALL
            SELECT m.id, 'memory', NULL, m.hash, m.words FROM _bm25_memories m WHERE $1 = 0 AND NOT EXISTS (
                SELECT 1 FROM bm25_docs d WHERE d.kind = 'memory' AND d.id = m.id AND d.hash = m.hash))""",
                [group, start])
    removed = cur.execute("SELECT count(*) FROM _bm25_old").fetchone()[0]
    added = cur.execute("SELECT count(*) FROM _bm25_new").fetchone()[0]
    if removed:
        cur.execute("""UPDATE bm25_terms t SET df = t.df - g.n FROM (
                           SELECT termid, count(*) AS n FROM bm25_postings
                           WHERE docid IN (SELECT docid FROM _bm25_old) GROUP BY termid) g
                       WHERE t.termid = g.termid""")
        cur.execute("DELETE FROM bm25_terms WHERE df <= 0")
        cur.execute("DELETE FROM bm25_postings WHERE docid IN (SELECT docid FROM _bm25_old)")
        cur.execute("DELETE FROM bm25_docs WHERE docid IN (SELECT docid FROM _bm25_old)")
    if added:
        # each document's words: tokenized and counted, stopwords dropped, then stemmed once per
        # distinct word (stemming every occurrence took a fifth longer)
        cur.execute(f"""CREATE OR REPLACE TEMP TABLE _bm25_tokens AS
            WITH words AS (SELECT docid, w, count(*) AS n FROM (SELECT docid, unnest({tokenize('words')}) AS w
                                                                FROM _bm25_new) WHERE w <> '' GROUP BY ALL),
                 stems AS (SELECT w, stem(w, 'porter') AS term FROM (SELECT DISTINCT w FROM words)
                           WHERE w NOT IN {_STOP_LIST})
            SELECT docid, term, sum(n)::BIGINT AS tf FROM words JOIN stems USING (w) GROUP BY ALL""", [_STOPWORDS])
        cur.execute("""INSERT INTO bm25_terms
            SELECT (SELECT coalesce(max(termid), -1) FROM bm25_terms) + row_number() OVER (ORDER BY term), term, 0
            FROM (SELECT DISTINCT term FROM _bm25_tokens) ANTI JOIN bm25_terms USING (term)""")
        cur.execute("""UPDATE bm25_terms t SET df = t.df + g.n FROM (
                           SELECT term, count(*) AS n FROM _bm25_tokens GROUP BY term) g
                       WHERE t.term = g.term""")
        # in document order: a later removal of one file's documents reads only the row groups
        # that hold them (DuckDB skips the others by their min/max document id)
        cur.execute("""INSERT INTO bm25_postings
            SELECT t.termid, k.docid, k.tf FROM _bm25_tokens k JOIN bm25_terms t USING (term) ORDER BY k.docid""")
        cur.execute("""INSERT INTO bm25_docs
            SELECT n.docid, n.id, n.kind, n.path, n.hash, coalesce(l.len, 0) FROM _bm25_new n
            LEFT JOIN (SELECT docid, sum(tf) AS len FROM _bm25_tokens GROUP BY docid) l USING (docid)""")
        cur.execute("DROP TABLE _bm25_tokens")
        store.set_meta(NEXT_DOCID, str(start + added), cur=cur)
    cur.execute("DROP TABLE _bm25_old")
    cur.execute("DROP TABLE _bm25_new")
    return bool(removed or added), start + added


# -- reading ---------------------------------------------------------------------------------
# the query's distinct stems, and whether each is a stopword (a word the index does not hold
# counts against coverage only when it is not a stopword)
_QUERY_TERMS = f"""SELECT stem(w, 'porter') AS term, bool_and(w IN {_STOP_LIST}) AS stop
                   FROM (SELECT unnest({tokenize('?')}) AS w) WHERE w <> '' GROUP BY 1"""
_STATS = "(SELECT count(*) AS num_docs, coalesce(avg(len), 0) AS avgdl FROM bm25_docs)"
_IDF = "log10((s.num_docs - t.df + 0.5) / (t.df + 0.5) + 1)"  # fts's log() is base 10


def bm25(store: Store, query: str, kind: str | None, limit: int) -> list[tuple[str, str, float]]:
    """(id, kind, score) best first, ties by id (a process's first search: no postings loaded)."""
    return store.cursor().execute(f"""
        WITH t AS (SELECT termid, df FROM bm25_terms WHERE term IN (SELECT term FROM ({_QUERY_TERMS})))
        SELECT d.id, d.kind, sum({_IDF} * p.tf * {K1 + 1} / (p.tf + {K1} * (1 - {B} + {B} * d.len / s.avgdl))) AS score
        FROM bm25_postings p JOIN t USING (termid) JOIN bm25_docs d USING (docid), {_STATS} s
        WHERE CAST(? AS VARCHAR) IS NULL OR d.kind = ?
        GROUP BY d.id, d.kind ORDER BY score DESC, d.id LIMIT ?""",
        [_STOPWORDS, query, kind, kind, limit]).fetchall()


def bm25_with_coverage(store: Store, query: str, kind: str | None, limit: int) -> tuple[list[tuple], float]:
    """`bm25` and the coverage of its best hit (`bm25_coverage`)."""
    found = bm25(store, query, kind, limit)
    return found, bm25_coverage(store, query, found[0][0]) if found else 0.0


def bm25_coverage(store: Store, query: str, item: str) -> float:
    """The coverage `Bm25Index.search` reports, in SQL: the share of the query's idf that the
    item's document holds, a word no document holds counting as the rarest."""
    rows = store.cursor().execute(f"""
        WITH q AS (SELECT term FROM ({_QUERY_TERMS}) WHERE NOT stop OR term IN (SELECT term FROM bm25_terms)),
             held AS (SELECT t.term FROM bm25_postings p JOIN bm25_terms t USING (termid)
                      WHERE p.docid IN (SELECT docid FROM bm25_docs WHERE id = ?))
        SELECT log10((s.num_docs - coalesce(t.df, 0) + 0.5) / (coalesce(t.df, 0) + 0.5) + 1), q.term IN (SELECT term FROM held)
        FROM q LEFT JOIN bm25_terms t USING (term), {_STATS} s""", [_STOPWORDS, query, item]).fetchall()
    total = sum(idf for idf, _ in rows)
    return sum(idf for idf, found in rows if found) / total if total else 0.0


def query_terms(store: Store, query: str) -> list[tuple[str, bool]]:
    """The query as the index sees it: (stem, is a stopword) per distinct stem."""
    return store.cursor().execute(_QUERY_TERMS, [_STOPWORDS, query]).fetchall()


def term_rows(store: Store, terms: list[str]) -> list[tuple[str, int, int]]:
    """(term, termid, df) of those of `terms` the index holds."""
    if not terms:
        return []
    return store.cursor().execute(f"SELECT term, termid, df FROM bm25_terms WHERE term IN {IN_LIST}",
                                  [joined(terms)]).fetchall()


@contextmanager
def reading(store: Store):
    """A cursor whose reads all see the index as it was at the first (one read transaction)."""
    cur = store.cursor()
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
    finally:
        cur.execute("ROLLBACK")


def next_docid(cur) -> int:
    row = cur.execute("SELECT value FROM meta WHERE key = ?", [NEXT_DOCID]).fetchone()
    return int(row[0]) if row else 0


def documents(cur, start: int, end: int) -> tuple[dict, dict]:
    """The documents numbered from `start` to before `end` (docid, id, memory, len; by docid)
    and their postings (termid, docid, tf; by term, then document), as numpy columns; the
    postings' of 32 bits (5.8 million at 11,282 files; docids stay far below 2**31)."""
    docs = cur.execute("SELECT docid, id, kind = 'memory' AS memory, len FROM bm25_docs "
                       "WHERE docid >= ? AND docid < ? ORDER BY docid", [start, end]).fetchnumpy()
    where = "FROM bm25_postings WHERE docid >= ? AND docid < ?"
    count = cur.execute(f"SELECT count(*) {where}", [start, end]).fetchone()[0]
    postings = {"termid": np.empty(count, dtype=np.int32), "docid": np.empty(count, dtype=np.int32),
                "tf": np.empty(count, dtype=np.float32)}
    at = 0
    for low, high in _term_slices(cur, count):  # in term order: each slice sorted apart, written in place
        part = cur.execute(f"SELECT termid, docid::INTEGER AS docid, tf::FLOAT AS tf {where} AND termid >= ? "
                           "AND termid < ? ORDER BY termid, docid", [start, end, low, high]).fetchnumpy()
        n = len(part["termid"])
        for column, values in part.items():
            postings[column][at:at + n] = values
        at += n
    if at != count:
        raise RuntimeError("bm25 postings changed under a read transaction")
    return docs, postings


POSTINGS_AT_ONCE = 1_000_000  # postings sorted by one statement (8.3 million at once: ~170 MB at 10,740 files)


def _term_slices(cur, count: int) -> list[tuple[int, int]]:
    """Ranges of term ids [low, high) of about POSTINGS_AT_ONCE postings each (by the terms'
    document counts), covering every id."""
    top = 2 ** 31 - 1
    if count <= POSTINGS_AT_ONCE:
        return [(-top, top)]
    terms = cur.execute("SELECT termid, df FROM bm25_terms WHERE termid IS NOT NULL ORDER BY termid").fetchnumpy()
    ids, seen = np.asarray(terms["termid"], dtype=np.int64), np.cumsum(np.asarray(terms["df"], dtype=np.int64))
    cuts = ids[np.searchsorted(seen, np.arange(POSTINGS_AT_ONCE, seen[-1] if len(seen) else 0, POSTINGS_AT_ONCE))]
    bounds = [-top, *sorted(set(cuts.tolist()) - {-top}), top]
    return list(zip(bounds[:-1], bounds[1:]))


def docids_before(cur, end: int):
    """The ids of the documents still there among those numbered before `end`."""
    return cur.execute("SELECT docid FROM bm25_docs WHERE docid < ? ORDER BY docid", [end]).fetchnumpy()["docid"]
