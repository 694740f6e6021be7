"""The memory book: every way a memory is written (teach, capture, import, forget, feedback,
approve, pin, re-anchor) as events in the log, and reading them back by replay.

It needs only the workspace folder, never the index database, so the CLI can write while an
editor's server owns the index. Every text is cleaned (invisible characters stripped) and
scanned for secrets before it can reach the log.
"""

from __future__ import annotations

import fnmatch
import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from memory_lsp.errors import UserError
from memory_lsp.memory import capture as capturing
from memory_lsp.memory import citations as cites
from memory_lsp.memory import rules, secrets
from memory_lsp.memory.eventlog import EventLog, ReadReport
from memory_lsp.memory.model import (INITIAL_CONFIDENCE, PRIORITIES, TYPES, UNREVIEWED_SOURCES, VERDICTS, Memory, check_match, check_priority,
                                     check_scope, check_source, check_tags, check_text, check_type, iso, parse_time)
from memory_lsp.memory.replay import replay
from memory_lsp.paths import MEMORY_DIR, relpath


@dataclass
class Written:
    memory: Memory
    created: bool = True  # False: an identical memory existed and was returned instead
    warnings: list[str] = field(default_factory=list)  # possible secrets that were not blocked
    redacted: list[str] = field(default_factory=list)  # what --redact removed
    similar: list[str] = field(default_factory=list)  # ids of near-duplicates: a suggestion, never a merge


@dataclass
class Loaded:
    memories: dict[str, Memory]
    report: ReadReport
    problems: list[str]  # events with bad fields, skipped


@dataclass
class ImportReport:
    files: list[str] = field(default_factory=list)
    created: list[Memory] = field(default_factory=list)
    unchanged: int = 0
    retired: list[Memory] = field(default_factory=list)  # imported earlier, gone from the file now
    refused: list[str] = field(default_factory=list)  # "path:line: why"
    warnings: list[str] = field(default_factory=list)
    duplicates: list[dict] = field(default_factory=list)  # {id, where, similar: [ids]}: kept, flagged


class MemoryBook:
    def __init__(self, root: Path):
        self.root = root
        self.log = EventLog(root / MEMORY_DIR)

    # -- reading ----------------------------------------------------------------------------
    def load(self, until: str | None = None, base: dict[str, Memory] | None = None) -> Loaded:
        report = self.log.read(until=until)
        problems: list[str] = []
        return Loaded(replay(report.events, base, problems), report, problems)

    def health(self) -> dict:
        """What `doctor` says about the event log: torn or unreadable lines, duplicates, quarantined fragments."""
        loaded = self.load()
        report = loaded.report
        return {"path": str(self.log.path), "events": len(report.events), "lines": report.lines,
                "memories": len(loaded.memories), "duplicates": report.duplicates,
                "skipped_lines": [f"line {n}: {why}" for n, why in report.bad_lines] + loaded.problems,
                "torn_tail": report.torn_tail,
                "quarantined": sorted(p.name for p in self.log.dir.glob(self.log.path.name + ".broken-*"))}

    def find(self, memories: dict[str, Memory], ref: str) -> Memory:
        """A memory by id, or by a unique prefix or suffix of at least 4 characters."""
        ref = ref.strip()
        if ref in memories:
            return memories[ref]
        hits = [m for i, m in memories.items() if len(ref) >= 4 and (i.startswith(ref) or i.endswith(ref))]
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise UserError(f"{ref!r} matches {len(hits)} memories ({', '.join(m.id for m in hits[:5])}): give more of the id")
        raise UserError(f"no memory {ref!r} (list them with `memory-lsp memories`)")

    # -- writing ----------------------------------------------------------------------------
    def teach(self, text: str, type_: str, cite: list[str] = (), tags: list[str] = (), scope: str | None = None,
              pin: bool = False, priority: str | None = None, source: str = "user_taught", redact: bool = False,
              provenance: dict | None = None, lookup: cites.CodeLookup | None = None,
              confidence: float | None = None, existing: dict[str, Memory] | None = None,
              match: str | None = None) -> Written:
        check_type(type_)
        check_source(source)
        priority = check_priority(priority or TYPES[type_][0])
        tags, scope, match = check_tags(list(tags)), check_scope(scope), check_match(match)
        text, warnings, redacted = self.clean(text, redact, extra=" ".join(tags))
        lookup = lookup or cites.FileLookup(self.root)
        citations = [cites.anchor(lookup, relpath(self.root, p), s, a, b)
                     for p, s, a, b in (cites.parse_spec(spec) for spec in cite)]
        if existing is None:
            existing = self.load().memories
        same = _same_text(existing, text)
        if same is not None:
            return Written(same, created=False, warnings=warnings, redacted=redacted)
        similar = _similar(existing, text)
        event = self.log.new_event(
            "memory.created", "", type=type_, text=text, priority=priority,
            confidence=INITIAL_CONFIDENCE[source] if confidence is None else round(confidence, 4),
            tags=tags, scope=scope, source=source, pinned=pin, needs_review=source in UNREVIEWED_SOURCES,
            citations=[c.to_event() for c in citations], provenance=provenance,
            **({"match": match} if match else {}))
        event["memory"] = event["id"]  # a memory is named after the event that created it
        self.log.append(event)
        memory = replay([event])[event["id"]]
        return Written(memory, warnings=warnings, redacted=redacted, similar=similar)

    def clean(self, text: str, redact: bool, extra: str = "") -> tuple[str, list[str], list[str]]:
        """Strip invisible characters, then refuse (or redact) secrets. -> (text, warnings, redacted)."""
        text, _removed = secrets.strip_invisible(unicodedata.normalize("NFC", text))
        text = check_text(text)
        findings = secrets.scan(text)
        blocked = secrets.blocking(findings) + secrets.blocking(secrets.scan(extra))
        if blocked and not redact:
            raise UserError("refused: the memory contains a secret: " + "; ".join(map(secrets.describe, blocked))
                            + " (remove it, or pass --redact to store the memory with it replaced)")
        if redact and findings:
            return check_text(secrets.redact(text, findings)), [], [secrets.describe(f) for f in findings]
        return text, [secrets.describe(f) for f in findings], []

    def edit(self, memories: dict[str, Memory], ref: str, text: str | None = None, type_: str | None = None,
             tags: list[str] | None = None, scope: str | None = None, priority: str | None = None,
             cite: list[str] | None = None, redact: bool = False, lookup: cites.CodeLookup | None = None,
             match: str | None = None) -> Memory:
        """Change a memory in place (a typo, a better type); its history stays in the log."""
        m = self.find(memories, ref)
        changes: dict = {}
        if text is not None:
            changes["text"] = self.clean(text, redact)[0]
        if type_ is not None:
            changes["type"] = check_type(type_)
            changes["priority"] = TYPES[type_][0]  # a new type brings its priority unless one is given
        if tags is not None:
            changes["tags"] = check_tags(tags)
        if scope is not None:
            changes["scope"] = check_scope(scope)
        if priority is not None:
            changes["priority"] = check_priority(priority)
        if match is not None:
            changes["match"] = check_match(match)
        if cite is not None:
            lookup = lookup or cites.FileLookup(self.root)
            changes["citations"] = [cites.anchor(lookup, relpath(self.root, p), s, a, b).to_event()
                                    for p, s, a, b in map(cites.parse_spec, cite)]
        if not changes:
            raise UserError("nothing to change: give --text, --type, --tag, --scope, --priority, --match or --cite")
        return self._append(m, "memory.edited", **changes)

    def forget(self, memories: dict[str, Memory], ref: str, reason: str, by: str | None = None,
               invalidate: bool = False) -> Memory:
        """Close a memory's validity window; nothing is deleted (`memories --at` still shows it)."""
        m = self.find(memories, ref)
        if m.valid_to is not None:
            raise UserError(f"memory {m.id} was already retired at {m.valid_to} ({m.invalid_reason or 'no reason'})")
        reason = self.clean(reason, redact=True)[0]
        if by is not None:
            by = self.find(memories, by).id
        kind = "memory.invalidated" if invalidate else "memory.superseded"
        self._append(m, kind, reason=reason, by=by)
        return m

    def feedback(self, memories: dict[str, Memory], ref: str, verdict: str) -> Memory:
        if verdict not in VERDICTS:
            raise UserError(f"unknown verdict {verdict!r}; use one of: {', '.join(VERDICTS)}")
        return self._append(self.find(memories, ref), "memory.feedback", verdict=verdict)

    def approve(self, memories: dict[str, Memory], ref: str) -> Memory:
        return self._append(self.find(memories, ref), "memory.approved")

    def pin(self, memories: dict[str, Memory], ref: str, pinned: bool = True) -> Memory:
        return self._append(self.find(memories, ref), "memory.pinned", pinned=pinned)

    def reanchor(self, memories: dict[str, Memory], ref: str, lookup: cites.CodeLookup,
                 index: int | None = None) -> Memory:
        """Accept today's code for a memory's drifted citations (or one of them): they become valid."""
        m = self.find(memories, ref)
        targets = [index] if index is not None else [i for i, c in enumerate(m.citations) if c.state == "drifted"]
        for i in targets:
            if not 0 <= i < len(m.citations):
                raise UserError(f"memory {m.id} has {len(m.citations)} citations; no citation {i}")
            if m.citations[i].state == "orphaned":
                raise UserError(f"citation {i} of {m.id} is orphaned: the code is gone; forget the memory or teach a new one")
            self.record_reanchor(m, i, cites.reanchored(m.citations[i], lookup))
        return m

    def record_reanchor(self, m: Memory, index: int, citation: cites.Citation) -> None:
        self.log.append(self.log.new_event("citation.reanchored", m.id, index=index, citation=citation.to_event()))

    def _append(self, m: Memory, kind: str, **payload) -> Memory:
        self.log.append(self.log.new_event(kind, m.id, **payload))
        return m

    # -- capture and import -------------------------------------------------------------------
    def capture(self, text: str, source: str = "observer_inferred", dry_run: bool = False,
                all_turns: bool = False) -> list[tuple]:
        """Store what the auto-capture patterns select from the user's turns (`all_turns`: every
        speaker's). -> [(candidate, Written | None)]."""
        check_source(source)
        existing = self.load().memories
        live = [m.text for m in existing.values() if m.valid_to is None]
        out = []
        text, masks = _mask_secrets(text, redact=False)  # whole, before it is split into sentences
        for cand in capturing.capture(text, live, roles=None if all_turns else capturing.USER_ROLES):
            hidden = [why for mark, why in masks.items() if mark in cand.text]
            if hidden:
                for mark in masks:
                    cand.text = cand.text.replace(mark, "[secret]")
                out.append((cand, "refused: the sentence contains a secret: " + "; ".join(hidden)))
                continue
            if dry_run:
                out.append((cand, None))
                continue
            try:
                written = self.teach(cand.text, cand.type, priority=cand.priority, source=source,
                                     tags=[f"captured:{cand.pattern}"], existing=existing)
            except UserError as exc:  # a secret in one sentence must not stop the others
                out.append((cand, str(exc)))
                continue
            existing[written.memory.id] = written.memory
            out.append((cand, written))
        return out

    def import_rules(self, files: list[str] | None = None, redact: bool = False) -> ImportReport:
        """Rule files (CLAUDE.md, AGENTS.md, .cursorrules, ...) or memory-lsp JSON exports, idempotently."""
        report = ImportReport()
        paths = [self.root / relpath(self.root, f) for f in files] if files else rules.find_rule_files(self.root)
        existing = self.load().memories
        for path in paths:
            rel = relpath(self.root, path)
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise UserError(f"cannot read {rel}: {exc}") from None
            report.files.append(rel)
            masks: dict[str, str] = {}
            if path.suffix != ".json":
                text, masks = _mask_secrets(text, redact)
            if redact:
                report.warnings += [f"{rel}: redacted {why}" for why in masks.values()]
            items = _export_items(rel, text) if path.suffix == ".json" else [
                dict(text=i.text, type=i.type, tags=i.tags, scope=i.scope, provenance={"path": rel, "line": i.line})
                for i in rules.parse_rules(rel, text)]
            seen = set()
            unseen = {mark for mark in masks if not any(mark in item["text"] for item in items)}
            if unseen and not redact:  # the secret was in no rule, but the user hears of it
                report.refused += [f"{rel}: left out: {masks[mark]}" for mark in sorted(unseen)]
            for item in items:
                where = f"{rel}:{item['provenance'].get('line') or item['provenance'].get('id')}"
                hidden = [why for mark, why in masks.items() if mark in item["text"]]
                if hidden and not redact:  # the rule held (part of) a secret found in the whole file
                    report.refused.append(f"{where}: refused: the rule contains a secret: " + "; ".join(hidden)
                                          + " (remove it, or pass --redact)")
                    continue
                try:
                    written = self.teach(item["text"], item["type"], tags=item.get("tags", []),
                                         scope=item.get("scope"), priority=item.get("priority"),
                                         pin=item.get("pinned", False), cite=item.get("cite", []),
                                         source=item.get("source", "imported"), redact=redact,
                                         provenance=item["provenance"], existing=existing)
                except UserError as exc:
                    report.refused.append(f"{where}: {exc}")
                    continue
                seen.add(written.memory.id)
                report.warnings += [f"{where}: possible secret: {w}" for w in written.warnings]
                if written.created:
                    existing[written.memory.id] = written.memory
                    report.created.append(written.memory)
                    # two files often say one rule twice (a person decides); items of one list share a lead-in
                    lead = item["text"].split(": ", 1)[0] + ": " if ": " in item["text"] else None
                    similar = [i for i in written.similar if not (lead and existing[i].text.startswith(lead))]
                    if similar:
                        report.duplicates.append({"id": written.memory.id, "where": where, "similar": similar})
                else:
                    report.unchanged += 1
            if path.suffix != ".json":  # a rule deleted from the file retires its memory
                for m in list(existing.values()):
                    if (m.source == "imported" and m.valid_to is None and m.id not in seen
                            and (m.provenance or {}).get("path") == rel):
                        self.forget(existing, m.id, reason=f"no longer in {rel}")
                        report.retired.append(m)
        return report


def select(memories: list[Memory], file: str | None = None, type_: str | None = None, state: str | None = None,
           at: str | None = None, include_retired: bool = False) -> list[Memory]:
    """Filter memories as `memory-lsp memories` does; most important first."""
    when = iso(parse_time(at)) if at else None
    out = []
    for m in memories:
        if when is not None:
            if not m.valid_at(when):
                continue
        elif m.valid_to is not None and not include_retired:
            continue
        if type_ and m.type != type_:
            continue
        if state and m.state != state:
            continue
        if file and not about_file(m, file):
            continue
        out.append(m)
    return sorted(out, key=lambda m: (-PRIORITIES.get(m.priority, 1), m.created, m.id))


def about_file(m: Memory, path: str) -> bool:
    """Does the memory cite the file (then or now) or does its scope glob cover it?"""
    for c in m.citations:
        if c.path == path or (c.current or {}).get("path") == path:
            return True
    if m.scope in ("global", rules.ON_REQUEST):  # an on-request rule is read when asked for, never by file
        return False
    globs = [g.strip().split("::", 1)[0] for g in m.scope.split(",")]  # .mdc rules may list several
    return any(g and (fnmatch.fnmatch(path, g) or path == g) for g in globs)


def _same_text(memories: dict[str, Memory], text: str) -> Memory | None:
    key = _normal(text)
    for m in memories.values():
        if m.valid_to is None and _normal(m.text) == key:
            return m
    return None


def _similar(memories: dict[str, Memory], text: str, limit: int = 3) -> list[str]:
    """Live memories whose words are nearly the same (capture's lexical cosine)."""
    scored = [(capturing.lexical_similarity(text, m.text), m.id) for m in memories.values() if m.valid_to is None]
    return [i for score, i in sorted(scored, reverse=True)[:limit] if score > capturing.DUPLICATE]


def _normal(text: str) -> str:
    # whitespace and case only: "status < 500" corrects "status >= 500", "C" is not "C++"
    return " ".join(text.casefold().split())


def _mask_secrets(text: str, redact: bool) -> tuple[str, dict[str, str]]:
    """A rule file scanned whole, before it is split into rules: a PEM key or a JSON key file
    spans many lines, and each line alone looks harmless. Every secret is replaced by a mark
    (by [REDACTED:rule] with redact) that keeps the line count; -> (text, {mark: description})."""
    clean, _ = secrets.strip_invisible(unicodedata.normalize("NFC", text))
    findings = secrets.scan(clean) if redact else secrets.blocking(secrets.scan(clean))
    if not findings:
        return text, {}
    out, masks, pos = [], {}, 0
    for n, f in enumerate(findings):
        key = f"[secret {n}\ue000]"  # words, so no parser drops the line; private use: never typed
        masks[key] = secrets.describe(f)
        mark = f"[REDACTED:{f.rule}]" if redact else key
        out += [clean[pos:f.start], mark + "\n" * clean.count("\n", f.start, f.end)]
        pos = f.end
    out.append(clean[pos:])
    return "".join(out), masks


def _export_items(rel: str, text: str) -> list[dict]:
    """Memories from a `memory-lsp export --format json` file (another clone, another project)."""
    try:
        data = json.loads(text)
        memories = data["memories"] if isinstance(data, dict) else None
        if not isinstance(memories, list):
            raise ValueError("no 'memories' list")
    except (ValueError, KeyError) as exc:
        raise UserError(f"{rel} is not a memory-lsp JSON export ({exc})") from None
    items = []
    for d in memories:
        if not isinstance(d, dict) or not isinstance(d.get("text"), str):
            continue
        cite = []
        for c in d.get("citations") or []:
            where = c.get("current") or c
            spec = where["path"] + (f"::{where['symbol']}" if where.get("symbol") else "")
            if where.get("start_line") and not where.get("symbol"):
                spec += f":{where['start_line']}-{where['end_line']}"
            cite.append(spec)
        items.append(dict(text=d["text"], type=d.get("type", "fact"), tags=d.get("tags", []), scope=d.get("scope"),
                          priority=d.get("priority"), pinned=bool(d.get("pinned")), cite=cite,
                          source=d.get("source", "imported") if d.get("source") != "git_mined" else "imported",
                          provenance={"path": rel, "id": d.get("id")}))
    return items
