"""Which files of a workspace get indexed: .gitignore, excludes, symlinks, size.

In a git work tree, git itself lists the files (`ls-files --cached --others
--exclude-standard`), which is exact and fast. Elsewhere a walk that never follows directory
symlinks applies the .gitignore files it meets. Binary and minified files are detected later,
where the bytes are read (the extraction worker).

Every file left out for a reason a user may not expect is returned as skipped, with the reason
(`doctor` names them): a symlink not followed, a FIFO, socket or device, a folder that cannot be
read, a file too large, a file left out by the user's `excludes`. Git lists neither special files
nor unreadable folders, so in a git work tree the folders it listed are scanned for the first and
its warnings are read for the second.

A Python environment (a folder holding `pyvenv.cfg` or `conda-meta/`) is never indexed, whatever
its name; a folder merely named `venv` is (the standard library's `venv` package). Git is still
told not to walk untracked folders named `venv`: listing an environment's site-packages file by
file would cost more than the rare untracked package of that name.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from memory_lsp.index.languages import classify
from memory_lsp.settings import DEFAULT_EXCLUDES, Settings

ENVIRONMENT_MARKERS = ("pyvenv.cfg", "conda-meta")  # what makes a folder a Python environment
GIT_ONLY_EXCLUDES = ("venv",)  # untracked folders git need not walk (see the module's docstring)


@dataclass(frozen=True)
class Candidate:
    path: str  # workspace-relative, posix
    lang: str
    size: int
    mtime: float


def discover(root: Path, settings: Settings) -> tuple[list[Candidate], list[tuple[str, str, int]]]:
    """Return the indexable files and the skipped ones as (path, reason, size)."""
    defaults = _Ignore.from_lines(list(DEFAULT_EXCLUDES))
    user = _Ignore.from_lines(list(settings.excludes))
    skipped: list[tuple[str, str, int]] = []
    listed = _git_files(root, skipped)
    paths = _outside_environments(listed) if listed is not None else _walk(root, skipped, defaults)
    skipped = [s for s in skipped if not (defaults.ignored(s[0], is_dir=True) or user.ignored(s[0], is_dir=True))]
    candidates = []
    base = str(root)
    for rel in paths:
        if defaults.ignored(rel, is_dir=False):
            continue
        full = os.path.join(base, rel)  # a string: pathlib's joins cost more than the lstat
        try:
            st = os.lstat(full)
        except OSError:
            continue  # listed by git but deleted in the work tree
        lang = classify(rel)
        if stat.S_ISLNK(st.st_mode):
            # a link to a folder matters whatever its name: a whole tree is not indexed
            if lang is not None or os.path.isdir(full):
                skipped.append((rel, "symlink" + (": folder" if os.path.isdir(full) else ""), 0))
            continue
        if lang is None:
            continue
        if user.ignored(rel, is_dir=False):
            skipped.append((rel, "excluded", st.st_size))
        elif not stat.S_ISREG(st.st_mode):
            skipped.append((rel, f"special_file: {_special_kind(st.st_mode)}", 0))  # opening a FIFO blocks
        elif st.st_size > settings.max_file_bytes:
            skipped.append((rel, "too_large", st.st_size))
        else:
            candidates.append(Candidate(rel, lang, st.st_size, st.st_mtime))
    return candidates, skipped


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "not a regular file"


def excluded(rel: str, settings: Settings) -> bool:
    """Would `discover` leave this path out by its exclude globs? (a watcher's question)"""
    rules = _Ignore.from_lines(list(DEFAULT_EXCLUDES) + list(settings.excludes))
    parts = rel.split("/")
    return any(rules.ignored("/".join(parts[:i]), is_dir=i < len(parts)) for i in range(1, len(parts) + 1))


def would_list(root: Path, settings: Settings, rels: list[str]) -> set[str]:
    """Which of these paths (new to the index: an editor's buffer, a watcher's event) a full
    discovery would index: by the same rules (git's listing, or the walk's .gitignore files;
    excludes; environments; links), so that an incremental run never indexes what the next full
    run drops. Files already indexed were listed once and are not asked about."""
    rels = [r for r in rels if not excluded(r, settings)  # the default and the user's excludes
            and not in_environment(root, r) and not os.path.islink(root / r)]
    if not rels:
        return set()
    listed = _git_files(root, [], rels)
    if listed is not None:
        return set(rels) & set(listed)
    return {r for r in rels if not _ignored_by_gitignore_files(root, r)}


def _ignored_by_gitignore_files(root: Path, rel: str) -> bool:
    """The walk's verdict on one path: every .gitignore from the root down to its folder."""
    parts = rel.split("/")
    verdict = False
    for depth in range(len(parts)):
        base = "/".join(parts[:depth])
        try:
            text = (root / base / ".gitignore").read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        rules = _Ignore.from_lines(text.splitlines())
        for i in range(depth + 1, len(parts) + 1):  # each folder below the .gitignore, then the file
            v = rules.verdict("/".join(parts[depth:i]), is_dir=i < len(parts))
            if v is not None:
                verdict = v
                if v and i < len(parts):
                    return True  # an ignored folder is never walked: nothing below re-includes
    return verdict


def in_environment(root: Path, rel: str) -> bool:
    """Is this path inside a Python environment of the workspace? (a watcher's question too)"""
    parts = rel.split("/")[:-1]
    return any(_is_environment(root / "/".join(parts[:i])) for i in range(1, len(parts) + 1))


def _is_environment(folder: Path) -> bool:
    return any(os.path.exists(folder / marker) for marker in ENVIRONMENT_MARKERS)


def _lists_environment(dirpath: str, dirnames: list[str], filenames: list[str]) -> bool:
    """_is_environment from a folder's listing (the walk has it: no stat per folder); a marker listed
    is still asked about (a broken link is listed but does not exist)."""
    return any(m in filenames or m in dirnames for m in ENVIRONMENT_MARKERS) and _is_environment(Path(dirpath))


def _outside_environments(paths: list[str]) -> list[str]:
    """The listed paths less those under a folder that holds an environment marker (a tracked
    or un-ignored environment: git lists its files like any others)."""
    envs = set()
    for rel in paths:
        folder, _, name = rel.rpartition("/")
        if name == ENVIRONMENT_MARKERS[0]:
            envs.add(folder)
        elif f"/{ENVIRONMENT_MARKERS[1]}/" in f"/{rel}":
            envs.add(f"/{rel}".split(f"/{ENVIRONMENT_MARKERS[1]}/")[0].lstrip("/"))
    if not envs:
        return paths
    if "" in envs:
        return []  # the workspace is an environment itself
    return [p for p in paths if not any(p.startswith(env + "/") for env in envs)]


_GIT_UNREADABLE = re.compile(r"could not open directory '(.+?)/?': (.+)$")


def _git_files(root: Path, skipped: list, only: list[str] | None = None) -> list[str] | None:
    # the default excludes as git excludes too: git then never walks an untracked node_modules/
    excludes = [f"--exclude={pattern}" for pattern in DEFAULT_EXCLUDES + GIT_ONLY_EXCLUDES]
    pathspecs = ["--", *(f":(literal){rel}" for rel in only)] if only is not None else []
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others", "--exclude-standard", *excludes,
             *pathspecs], capture_output=True, timeout=60, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    # ls-files paths are relative to root when run there; submodules appear as folders: skip
    listed = sorted({p for p in done.stdout.decode("utf-8", "surrogateescape").split("\0") if p})
    if only is not None:
        return _outside_environments(listed)
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        match = _GIT_UNREADABLE.search(line)  # git warns and goes on
        if match:
            skipped.append((match.group(1), f"unreadable_folder: {match.group(2)}", 0))
    return listed + _git_special_files(root, listed)


def _git_special_files(root: Path, listed: list[str]) -> list[str]:
    """FIFOs, sockets and devices in the folders git listed files in (git never lists them),
    less those git ignores. One scandir per folder; `discover` gives their reason."""
    known = set(listed)
    found = []
    for folder in sorted({os.path.dirname(p) for p in listed}):
        try:
            with os.scandir(root / folder if folder else root) as entries:
                for e in entries:
                    rel = f"{folder}/{e.name}" if folder else e.name
                    if rel not in known and not (e.is_file(follow_symlinks=False) or e.is_dir(follow_symlinks=False)
                                                 or e.is_symlink()):
                        found.append(rel)
        except OSError:
            continue
    if not found:
        return []
    try:
        ignored = subprocess.run(["git", "-C", str(root), "check-ignore", "-z", "--stdin"],
                                 input="\0".join(found).encode("utf-8", "surrogateescape"),
                                 capture_output=True, timeout=60).stdout  # exit 1 = none ignored
    except (OSError, subprocess.SubprocessError):
        return found
    drop = set(ignored.decode("utf-8", "surrogateescape").split("\0"))
    return [p for p in found if p not in drop]


def _walk(root: Path, skipped: list, defaults: "_Ignore") -> list[str]:
    out = []
    ignores: dict[str, _Ignore] = {}

    def unreadable(exc: OSError) -> None:
        rel = os.path.relpath(exc.filename, root).replace(os.sep, "/")
        if rel != ".":
            skipped.append((rel, f"unreadable_folder: {exc.strerror}", 0))

    for dirpath, dirnames, filenames in os.walk(root, followlinks=False, onerror=unreadable):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        if rel_dir and _lists_environment(dirpath, dirnames, filenames):
            dirnames[:] = []  # an environment is not indexed: none of its files, nothing below
            continue
        gitignore = os.path.join(dirpath, ".gitignore")
        if os.path.isfile(gitignore):
            try:
                with open(gitignore, encoding="utf-8", errors="replace") as fh:
                    ignores[rel_dir] = _Ignore.from_lines(fh.read().splitlines())
            except OSError:
                pass
        active = [(base, ig) for base, ig in ignores.items()
                  if base == "" or rel_dir == base or rel_dir.startswith(base + "/")]

        def ignored(rel: str, is_dir: bool) -> bool:
            verdict = False
            for base, ig in active:
                sub = rel[len(base) + 1:] if base else rel
                v = ig.verdict(sub, is_dir)
                if v is not None:
                    verdict = v
            return verdict

        keep = []
        for d in sorted(dirnames):
            rel = f"{rel_dir}/{d}" if rel_dir else d
            if d == ".git" or defaults.ignored(rel, True) or ignored(rel, True):  # never walked
                continue
            if os.path.islink(os.path.join(dirpath, d)):
                if not _is_environment(Path(dirpath) / d):
                    out.append(rel)  # not walked; `discover` names it a symlink not followed
                continue
            keep.append(d)
        dirnames[:] = keep
        for f in sorted(filenames):
            rel = f"{rel_dir}/{f}" if rel_dir else f
            if not ignored(rel, False):
                out.append(rel)
    return out


class _Ignore:
    """The .gitignore rules that matter here: globs, `**`, `!` negation, `dir/` and `/anchored`."""

    def __init__(self, rules: list[tuple[re.Pattern, bool, bool]]):
        self.rules = rules  # (regex, negated, dir_only)
        # Without a `!` rule the last match is any match: one regex for a folder, one for a file,
        # and each folder's verdict kept (a workspace's paths share their folders). Asking rule
        # by rule and prefix by prefix cost ~0.5 s of Django's discovery (3,663 files).
        plain = bool(rules) and not any(negated for _, negated, _ in rules)
        self._folder_rule = _union([regex for regex, _, _ in rules]) if plain else None
        self._file_rule = _union([regex for regex, _, dir_only in rules if not dir_only]) if plain else None
        self._folders: dict[str, bool] = {}

    @classmethod
    def from_lines(cls, lines: list[str]) -> "_Ignore":
        rules = []
        for line in lines:
            line = line.rstrip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            if negated:
                line = line[1:]
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line  # a leading or middle slash anchors to the .gitignore's folder
            line = line.lstrip("/")
            rules.append((re.compile(_glob_to_regex(line, anchored)), negated, dir_only))
        return cls(rules)

    def verdict(self, rel: str, is_dir: bool) -> bool | None:
        """True = ignored, False = re-included, None = no rule speaks (the last match wins)."""
        if self._folder_rule is not None:
            return self._any_verdict(rel, is_dir)
        return self._verdict_in_order(rel, is_dir)

    def _verdict_in_order(self, rel: str, is_dir: bool) -> bool | None:
        """verdict() rule by rule, each against the path and every folder above it."""
        result = None
        parts = rel.split("/")
        for regex, negated, dir_only in self.rules:
            # a rule matching any parent folder ignores everything below it
            for i in range(1, len(parts) + 1):
                prefix = "/".join(parts[:i])
                prefix_is_dir = i < len(parts) or is_dir
                if dir_only and not prefix_is_dir:
                    continue
                if regex.fullmatch(prefix):
                    result = not negated
                    break
        return result

    def _any_verdict(self, rel: str, is_dir: bool) -> bool | None:
        """verdict() for rules none of which is negated: True if one matches the path or a folder above it."""
        folder = ""
        for part in rel.split("/")[:-1]:
            folder = f"{folder}/{part}" if folder else part
            hit = self._folders.get(folder)
            if hit is None:
                hit = self._folders[folder] = self._folder_rule.fullmatch(folder) is not None
            if hit:
                return True
        rule = self._folder_rule if is_dir else self._file_rule
        return True if rule is not None and rule.fullmatch(rel) else None

    def ignored(self, rel: str, is_dir: bool) -> bool:
        return bool(self.verdict(rel, is_dir))


def _union(regexes: list[re.Pattern]) -> re.Pattern | None:
    """One regex that fully matches what any of `regexes` fully matches (None: no regex)."""
    return re.compile("|".join(f"(?:{r.pattern})" for r in regexes)) if regexes else None


def _glob_to_regex(pattern: str, anchored: bool) -> str:
    out = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out += "(?:.*/)?"
            i += 3
        elif pattern.startswith("/**", i) and i + 3 == len(pattern):
            out += "/.*"
            i += 3
        elif pattern[i] == "*":
            out += "[^/]*"
            i += 1
        elif pattern[i] == "?":
            out += "[^/]"
            i += 1
        elif pattern[i] == "[":
            j = pattern.find("]", i)
            if j == -1:
                out += re.escape(pattern[i])
                i += 1
            else:
                out += "[" + pattern[i + 1:j].replace("!", "^", 1) + "]"
                i = j + 1
        else:
            out += re.escape(pattern[i])
            i += 1
    return out if anchored else "(?:.*/)?" + out


def only_candidates(root: Path, only: dict[str, bytes | None], settings: Settings, known: dict):
    """An editor's run: its paths as candidates, those too large as skips, those gone (or now too
    large) as deletions, and the buffers' contents by path."""
    candidates, skipped, deleted, overrides = [], [], [], {}
    # a path new to the index is indexed only if a full run would list it (not ignored, excluded...)
    new = [rel for rel in only if rel not in known and classify(rel) is not None]
    listable = would_list(root, settings, new) if new else set()
    for rel, data in only.items():
        lang = classify(rel)
        full = root / rel
        if data is None and not full.is_file():
            if rel in known:
                deleted.append(rel)
            continue
        if lang is None or (rel not in known and rel not in listable):
            continue
        st = os.stat(full) if full.exists() else None
        size = len(data) if data is not None else st.st_size
        if size > settings.max_file_bytes:
            skipped.append((rel, "too_large", size))
            if rel in known:
                deleted.append(rel)
            continue
        candidates.append(Candidate(rel, lang, size, st.st_mtime if st else time.time()))
        if data is not None:
            overrides[rel] = data
    return candidates, skipped, deleted, overrides
