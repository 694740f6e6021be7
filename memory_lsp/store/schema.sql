-- memory-lsp index schema. The database is a cache: everything here is rebuilt from the
-- workspace (and, for memories, from the event log). Bump SCHEMA_VERSION in db.py on change.
CREATE TABLE IF NOT EXISTS meta (key VARCHAR, value VARCHAR);

-- one row per indexed file; side_effects and notes are comma-separated words
CREATE TABLE IF NOT EXISTS files (
    path VARCHAR, lang VARCHAR, hash VARCHAR, size BIGINT, mtime DOUBLE, loc INTEGER,
    is_test BOOLEAN, notes VARCHAR, side_effects VARCHAR, mutations INTEGER,
    churn INTEGER DEFAULT 0, last_change DOUBLE, reach INTEGER DEFAULT 0, score DOUBLE DEFAULT 0
);

-- files seen but not indexed, with why (binary, too_large, minified, symlink, unreadable)
CREATE TABLE IF NOT EXISTS skipped (path VARCHAR, reason VARCHAR, size BIGINT);

-- id = path::qualname
CREATE TABLE IF NOT EXISTS symbols (
    id VARCHAR, path VARCHAR, name VARCHAR, qualname VARCHAR, kind VARCHAR,
    start_line INTEGER, end_line INTEGER, parent VARCHAR, fingerprint VARCHAR
);

-- raw references (calls, base classes) before name resolution; src = symbol id or file path
CREATE TABLE IF NOT EXISTS refs (
    path VARCHAR, kind VARCHAR, src VARCHAR, src_class VARCHAR, name VARCHAR,
    receiver VARCHAR, line INTEGER, rtype VARCHAR  -- rtype: the receiver's type (index/receivers.py)
);

-- one row per imported binding and resolved target; target NULL = unresolved or external.
-- binding = the local name the import creates (alias, imported name, or module's own name)
CREATE TABLE IF NOT EXISTS imports (
    path VARCHAR, line INTEGER, module VARCHAR, name VARCHAR, alias VARCHAR, binding VARCHAR,
    target VARCHAR, is_module BOOLEAN, strategy VARCHAR
);

-- the graph. name = the referenced name for CALLS/INHERITS (lets a change re-resolve by name)
CREATE TABLE IF NOT EXISTS edges (
    src VARCHAR, dst VARCHAR, kind VARCHAR, src_path VARCHAR, dst_path VARCHAR,
    line INTEGER, confidence DOUBLE, strategy VARCHAR, name VARCHAR, support INTEGER,
    score DOUBLE DEFAULT 0,
    fingerprint UBIGINT  -- what the graph reads of the row, hashed (store/edges.py); NULL until a write fills it
);

-- search units: functions and classes (never split), documentation sections
CREATE TABLE IF NOT EXISTS chunks (
    id VARCHAR, path VARCHAR, kind VARCHAR, name VARCHAR, start_line INTEGER,
    end_line INTEGER, prefix VARCHAR, text VARCHAR
);
-- a search reads its results' chunks by id: 3 ms with this index, 15-25 ms scanning 100,000
CREATE INDEX IF NOT EXISTS chunks_id ON chunks (id);

-- the BM25 index (store/fulltext.py), updated file by file: one document per chunk and live memory
-- (hash: a memory's text's), its stemmed terms with their counts, the dictionary with each term's
-- document frequency, and the version of each file its documents were made from
CREATE TABLE IF NOT EXISTS bm25_docs (docid BIGINT, id VARCHAR, kind VARCHAR, path VARCHAR, hash VARCHAR, len INTEGER);
CREATE TABLE IF NOT EXISTS bm25_postings (termid INTEGER, docid BIGINT, tf INTEGER);
CREATE TABLE IF NOT EXISTS bm25_terms (termid INTEGER, term VARCHAR, df INTEGER);
CREATE TABLE IF NOT EXISTS bm25_sources (path VARCHAR, hash VARCHAR);
-- what DuckDB's fts extension built in indexes before v6
DROP SCHEMA IF EXISTS fts_main_fts_docs CASCADE;
DROP TABLE IF EXISTS fts_docs;

-- names that documentation mentions (backticked or path-like), resolved into DOCUMENTS edges
CREATE TABLE IF NOT EXISTS mentions (path VARCHAR, heading VARCHAR, line INTEGER, token VARCHAR);

-- memories: a projection of .memory/events.jsonl (plus git-mined couplings), rebuilt by replay.
-- doc = the memory as JSON (what the CLI prints); the other columns are for filtering and search
CREATE TABLE IF NOT EXISTS memories (
    id VARCHAR, type VARCHAR, text VARCHAR, priority VARCHAR, priority_rank INTEGER,
    confidence DOUBLE, tags VARCHAR, scope VARCHAR, source VARCHAR, pinned BOOLEAN,
    needs_review BOOLEAN, created VARCHAR, updated VARCHAR, valid_to VARCHAR,
    superseded_by VARCHAR, state VARCHAR, doc VARCHAR
);

-- one row per citation; cur_* = where the cited code is today (NULL when orphaned)
CREATE TABLE IF NOT EXISTS citations (
    memory_id VARCHAR, idx INTEGER, kind VARCHAR, path VARCHAR, symbol VARCHAR,
    start_line INTEGER, end_line INTEGER, fingerprint VARCHAR, state VARCHAR,
    cur_path VARCHAR, cur_symbol VARCHAR, cur_start INTEGER, cur_end INTEGER
);

-- embeddings: raw float32 bytes; hash = md5 of the embedded text (also the embedding cache key)
CREATE TABLE IF NOT EXISTS vectors (item_id VARCHAR, kind VARCHAR, hash VARCHAR, model VARCHAR, vec BLOB);
