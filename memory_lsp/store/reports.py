"""Reads that report on the index as a whole or around some files: summary, doctor, context, expand."""

from __future__ import annotations

COUNTED_TABLES = ("files", "symbols", "refs", "imports", "edges", "chunks", "mentions", "skipped")


def languages(cur) -> list[tuple]:
    """(lang, files, symbols), most files first."""
    return cur.execute("""
        SELECT f.lang, count(DISTINCT f.path), coalesce(sum(s.n), 0)
        FROM files f LEFT JOIN (SELECT path, count(*) AS n FROM symbols GROUP BY path) s ON s.path = f.path
        GROUP BY f.lang ORDER BY 2 DESC""").fetchall()


def edge_kinds(cur) -> list[tuple]:
    """(kind, edges), most first."""
    return cur.execute("SELECT kind, count(*) FROM edges GROUP BY kind ORDER BY 2 DESC").fetchall()


def most_depended_on(cur, top: int) -> list[tuple]:
    """(path, reach, score) of the `top` files most others depend on."""
    return cur.execute("SELECT path, reach, score FROM files ORDER BY reach DESC, score DESC, path LIMIT ?",
                       [top]).fetchall()


def table_counts(cur) -> dict[str, int]:
    return {t: cur.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTED_TABLES}


def skip_reasons(cur) -> list[tuple]:
    """(reason, files), most first. A reason is the part before a colon ("unreadable: Permission
    denied" counts as unreadable)."""
    return cur.execute("""SELECT split_part(reason, ':', 1) AS r, count(*) FROM skipped
                          GROUP BY r ORDER BY 2 DESC, r""").fetchall()


def skipped_files(cur, limit: int) -> list[tuple]:
    """(reason, path, detail, size): the first `limit` files of each reason by path."""
    return cur.execute("""
        SELECT r, path, detail, size FROM (
            SELECT split_part(reason, ':', 1) AS r, path, trim(substr(reason, length(split_part(reason, ':', 1)) + 2))
                   AS detail, size, row_number() OVER (PARTITION BY split_part(reason, ':', 1) ORDER BY path) AS n
            FROM skipped)
        WHERE n <= ? ORDER BY r, path""", [limit]).fetchall()


def file_notes(cur) -> list[tuple]:
    """(note such as syntax_errors, files), most first."""
    return cur.execute("""SELECT note, count(*) FROM (SELECT unnest(string_split(notes, ',')) AS note
                          FROM files WHERE notes <> '') GROUP BY note ORDER BY 2 DESC""").fetchall()


def noted_files(cur, limit: int) -> list[tuple]:
    """(note, path): the first `limit` files of each note by path."""
    return cur.execute("""
        SELECT note, path FROM (
            SELECT note, path, row_number() OVER (PARTITION BY note ORDER BY path) AS n
            FROM (SELECT unnest(string_split(notes, ',')) AS note, path FROM files WHERE notes <> ''))
        WHERE n <= ? ORDER BY note, path""", [limit]).fetchall()


def unresolved_calls(cur) -> int:
    """Call sites that no CALLS edge resolves (a dotted string naming no function a loader may load,
    index/string_imports.py, is no call site)."""
    return cur.execute("""
        SELECT count(*) FROM refs r WHERE r.kind = 'call' AND NOT contains(r.name, '.') AND NOT EXISTS (
            SELECT 1 FROM edges e WHERE e.kind = 'CALLS' AND e.src_path = r.path AND e.line = r.line
            AND e.name = r.name)""").fetchone()[0]


def strongest_edges_around(cur, files: list[str], min_confidence: float, limit: int) -> list[tuple]:
    """(src, dst, kind, score) best first: edges from or into `files`, and calls into them from
    elsewhere (calls between their own symbols are left out)."""
    if not files:
        return []
    return cur.execute("""
        WITH mine AS (SELECT unnest(?::VARCHAR[]) AS p)
        SELECT src, dst, kind, score FROM edges
        WHERE confidence >= ? AND (
              (kind <> 'CALLS' AND (src_path IN (SELECT p FROM mine) OR dst_path IN (SELECT p FROM mine)))
           OR (kind = 'CALLS' AND dst_path IN (SELECT p FROM mine) AND src_path NOT IN (SELECT p FROM mine)))
        ORDER BY score DESC, src, dst LIMIT ?""", [files, min_confidence, limit]).fetchall()


def recent_changes(cur, limit: int) -> list[tuple]:
    """(path, churn, last_change) of the files git changed last."""
    return cur.execute("SELECT path, churn, last_change FROM files WHERE last_change IS NOT NULL "
                       "ORDER BY last_change DESC, path LIMIT ?", [limit]).fetchall()


def file_profile(cur, path: str):
    """(path, lang, loc, is_test, reach, score, churn), or None for a file not indexed."""
    return cur.execute("SELECT path, lang, loc, is_test, reach, score, churn FROM files WHERE path = ?",
                       [path]).fetchone()


def file_links(cur, path: str, outgoing: bool) -> list[tuple]:
    """(kind, other file, edges, best confidence, a strategy) between `path` and other files."""
    mine, other = ("src_path", "dst_path") if outgoing else ("dst_path", "src_path")
    return cur.execute(f"""SELECT kind, {other}, count(*), max(confidence), min(strategy) FROM edges WHERE {mine} = ?
                           AND {other} IS NOT NULL AND {other} <> ? GROUP BY 1, 2 ORDER BY 1, 3 DESC, 2""",
                       [path, path]).fetchall()
