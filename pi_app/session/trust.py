"""Project trust: which resources a folder supplies, whether the user trusts them, and the saved decisions.

pi's rule (docs/security.md, "Project trust"): a folder's ``.pi`` configuration and project skills load only
after a decision. The decision comes from the command line (``-a``/``-na``) for this process; else from the
closest saved decision for the cwd or a parent in ``<agent dir>/trust.json`` (canonical paths, pi's format:
``{"/path": true|false}``); else from ``defaultProjectTrust`` in the agent-dir settings (``ask``, ``always``,
``never``; a project cannot set it). A folder with no protected resources needs no decision.

Beyond pi: trusting a folder records a fingerprint (every protected file and the hash of its contents) in
``<agent dir>/trust-fingerprints.json``, kept apart so trust.json stays exactly pi's. When the protected files
change later, the saved "trust" no longer applies and the folder counts as undecided. A saved decision
without a fingerprint (written by pi, or before the folder had anything to protect) gets one the first time
it is used.

No UI here: the TUI shows :class:`TrustDecision` on its trust screen; print/json/rpc never ask.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pi_app.session.config.jsonfile import ConfigFileError, atomic_write_text, dumps, load_json_file, locked

TrustMode = Literal["ask", "always", "never"]
TRUST_MODES: tuple[TrustMode, ...] = ("ask", "always", "never")
DecisionSource = Literal["cli", "saved", "default", "none-needed"]

TRUST_FILE = "trust.json"
FINGERPRINT_FILE = "trust-fingerprints.json"
# a fingerprint walks protected directories; past this many files it stops (and says so in the hash input)
MAX_FINGERPRINT_FILES = 5000
_SKIP_DIRS = {"node_modules", ".git", "__pycache__"}

# the files and directories under .pi that need a decision, with the kind shown on the trust screen
_PI_ENTRIES: tuple[tuple[str, str], ...] = (
    ("settings.json", "settings"),
    ("mcp.json", "mcp"),
    ("extensions", "extensions"),
    ("skills", "skills"),
    ("prompts", "prompts"),
    ("themes", "themes"),
    ("SYSTEM.md", "system prompt"),
    ("APPEND_SYSTEM.md", "appended system prompt"),
)


class TrustFileError(ValueError):
    """trust.json (or its fingerprints) cannot be used; ``str()`` names the file. It is never overwritten."""


def canonical(path: str | os.PathLike[str]) -> str:
    """The canonical form saved decisions use: absolute, symlinks resolved."""
    return os.path.realpath(os.path.abspath(os.path.expanduser(os.fspath(path))))


# ----------------------------------------------------------------------------------------- discovery


@dataclass(frozen=True)
class ProtectedResource:
    """A project file or directory that loads only once the folder is trusted, and what loading it would do."""

    kind: str  # "settings", "mcp", "extensions", "skills", "prompts", "themes", "system prompt", ...
    path: str  # absolute
    effect: str  # what loading it would do, for the trust screen

    def label(self, cwd: str) -> str:
        """The path relative to ``cwd`` when it is inside it (ancestor skills keep their full path)."""
        try:
            rel = os.path.relpath(self.path, cwd)
        except ValueError:
            return self.path
        return self.path if rel.startswith("..") else rel


def _walk_files(root: Path) -> Iterator[Path]:
    """Files under ``root`` (itself when a file), sorted, not following symlinked directories."""
    if root.is_file():
        yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_DIRS)
        for name in sorted(filenames):
            yield Path(dirpath) / name


def _names(root: Path, suffix: str, limit: int = 8) -> str:
    found: list[str] = []
    total = 0
    for f in _walk_files(root):
        if f.suffix != suffix:
            continue
        total += 1
        if len(found) < limit:
            found.append(f.parent.name if f.name == "SKILL.md" else f.stem)
    if total == 0:
        return "none yet"
    more = f", +{total - len(found)} more" if total > len(found) else ""
    return ", ".join(found) + more


def _settings_effect(path: Path) -> str:
    try:
        data = load_json_file(path)
    except (ConfigFileError, OSError):
        return "settings (cannot be read as JSON)"
    if not isinstance(data, dict) or not data:
        return "settings (no keys)"
    keys = sorted(str(k) for k in data)
    return "changes settings: " + ", ".join(keys)


def _mcp_effect(path: Path) -> str:
    try:
        data = load_json_file(path)
    except (ConfigFileError, OSError):
        return "MCP servers (cannot be read as JSON)"
    servers = data.get("mcpServers", data) if isinstance(data, dict) else None
    names = sorted(str(k) for k in servers) if isinstance(servers, dict) else []
    return "MCP servers: " + (", ".join(names) if names else "none")


def _effect(kind: str, path: Path) -> str:
    if kind == "settings":
        return _settings_effect(path)
    if kind == "mcp":
        return _mcp_effect(path)
    if kind == "extensions":
        count = sum(1 for _ in _walk_files(path))
        return f"extension code, {count} file{'s' if count != 1 else ''} (extensions are not run here)"
    if kind == "skills":
        return "skills: " + _names(path, ".md")
    if kind == "prompts":
        return "prompt templates: " + _names(path, ".md")
    if kind == "themes":
        return "themes: " + _names(path, ".json")
    if kind == "system prompt":
        return "replaces the system prompt"
    return "adds to the system prompt"


def _project_skill_dirs(cwd: str) -> list[Path]:
    """Ancestor skill directories the skill loader reads as project skills (not ~/.agents, a user one)."""
    from pi_app.session.resources.skills import skill_dirs

    home_agents = canonical(os.path.join(os.path.expanduser("~"), ".agents", "skills"))
    here = Path(cwd)
    out = []
    for directory, source in skill_dirs(cwd, ""):
        if source != "project" or directory.parent.parent == here:
            continue  # cwd's own .pi/skills and .agents/skills are listed with the rest
        if canonical(directory) != home_agents:
            out.append(directory)
    return out


def discover_protected(cwd: str | os.PathLike[str]) -> list[ProtectedResource]:
    """Every resource under ``cwd`` (and ancestor project skills) that needs a trust decision.

    A bare ``.pi`` directory needs none; context files (AGENTS.md, CLAUDE.md) never do.
    """
    root = Path(canonical(cwd))
    found: list[ProtectedResource] = []
    pi_dir = root / ".pi"
    if pi_dir.is_dir():
        for name, kind in _PI_ENTRIES:
            path = pi_dir / name
            if path.exists():
                found.append(ProtectedResource(kind, str(path), _effect(kind, path)))
    agents = root / ".agents" / "skills"
    candidates = ([agents] if agents.exists() else []) + [
        d for d in _project_skill_dirs(str(root)) if d.exists()
    ]
    seen = {r.path for r in found}
    for directory in candidates:
        if str(directory) in seen:
            continue
        seen.add(str(directory))
        found.append(ProtectedResource("skills", str(directory), _effect("skills", directory)))
    return found


# --------------------------------------------------------------------------------------- fingerprint


def fingerprint(resources: list[ProtectedResource]) -> dict[str, str]:
    """Every protected file (absolute path) -> sha256 of its contents ("dir" for an empty directory)."""
    out: dict[str, str] = {}
    for res in resources:
        root = Path(res.path)
        any_file = False
        for f in _walk_files(root):
            if len(out) >= MAX_FINGERPRINT_FILES:
                out["<truncated>"] = str(MAX_FINGERPRINT_FILES)
                return out
            any_file = True
            if not f.is_file():  # a dangling link, a FIFO or device: never read it (it could block)
                out[str(f)] = "not a regular file"
                continue
            try:
                out[str(f)] = hashlib.sha256(f.read_bytes()).hexdigest()
            except OSError as exc:
                out[str(f)] = f"unreadable: {exc.strerror or exc}"
        if not any_file:
            out[str(root)] = "dir"
    return out


@dataclass(frozen=True)
class FingerprintChange:
    """How a trusted folder's protected files changed since its fingerprint was saved."""

    added: list[str]
    removed: list[str]
    modified: list[str]

    def lines(self, cwd: str) -> list[str]:
        def rel(p: str) -> str:
            r = os.path.relpath(p, cwd) if os.path.isabs(p) else p
            return p if r.startswith("..") else r

        return (
            [f"added: {rel(p)}" for p in self.added]
            + [f"removed: {rel(p)}" for p in self.removed]
            + [f"changed: {rel(p)}" for p in self.modified]
        )


def compare(old: dict[str, str], new: dict[str, str]) -> FingerprintChange | None:
    if old == new:
        return None
    return FingerprintChange(
        added=sorted(set(new) - set(old)),
        removed=sorted(set(old) - set(new)),
        modified=sorted(k for k in set(old) & set(new) if old[k] != new[k]),
    )


# ------------------------------------------------------------------------------------------- storage


class TrustStore:
    """``<agent dir>/trust.json`` (pi's format) and our fingerprints beside it.

    Reads are lenient about entries (a non-boolean value is ignored, and kept on write) but a file that is
    not a JSON object is damaged: it is reported and never written over.
    """

    def __init__(self, agent_dir: str | os.PathLike[str]) -> None:
        self.path = Path(agent_dir) / TRUST_FILE
        self.fingerprint_path = Path(agent_dir) / FINGERPRINT_FILE

    @staticmethod
    def _read_object(path: Path) -> dict[str, Any]:
        try:
            data = load_json_file(path)
        except ConfigFileError as exc:
            raise TrustFileError(f"{exc}; not used and not overwritten") from None
        except OSError as exc:
            raise TrustFileError(f"{path}: cannot read ({exc.strerror or exc})") from None
        if data is None:
            return {}
        if not isinstance(data, dict):
            raise TrustFileError(
                f"{path}: expected a JSON object of folder -> true/false; not used and not overwritten"
            )
        return data

    def decisions(self) -> dict[str, bool]:
        """Saved decisions (canonical folder -> trusted). Raises TrustFileError when the file is damaged."""
        return {k: v for k, v in self._read_object(self.path).items() if isinstance(v, bool)}

    def closest(self, cwd: str) -> tuple[str, bool] | None:
        """The saved decision for ``cwd`` or its nearest parent."""
        saved = self.decisions()
        here = Path(canonical(cwd))
        for directory in [here, *here.parents]:
            if str(directory) in saved:
                return str(directory), saved[str(directory)]
        return None

    def save(self, folder: str, trusted: bool) -> str:
        """Save a decision for ``folder`` (canonicalised); returns the key. Raises TrustFileError, OSError."""
        key = canonical(folder)
        with locked(self.path):
            data = self._read_object(self.path)  # re-read under the lock: keep other processes' decisions
            data[key] = trusted
            atomic_write_text(self.path, json.dumps(data, indent=2, sort_keys=True) + "\n", mode=0o600)
        return key

    def fingerprint_for(self, cwd: str) -> dict[str, str] | None:
        entry = self._read_object(self.fingerprint_path).get(canonical(cwd))
        if not isinstance(entry, dict):
            return None
        return {str(k): str(v) for k, v in entry.items()}

    def save_fingerprint(self, cwd: str, files: dict[str, str]) -> None:
        with locked(self.fingerprint_path):
            data = self._read_object(self.fingerprint_path)
            data[canonical(cwd)] = files
            atomic_write_text(self.fingerprint_path, dumps(data), mode=0o600)


# ------------------------------------------------------------------------------------------ decision


@dataclass
class TrustDecision:
    """What startup (or a session switch) decided for ``cwd``.

    ``trusted`` is None when the answer is "ask": the TUI shows the trust screen, other modes treat it
    as not trusted.
    """

    cwd: str  # canonical
    resources: list[ProtectedResource]
    trusted: bool | None
    source: DecisionSource
    mode: TrustMode = "ask"
    saved_folder: str | None = None
    changed: FingerprintChange | None = None  # a remembered trust whose files changed since
    warnings: list[str] = field(default_factory=list)

    @property
    def allowed(self) -> bool:
        """Whether protected resources load now (an open question is a no until answered)."""
        return self.trusted is True

    @property
    def skipped(self) -> bool:
        """Protected resources exist and are not loaded."""
        return bool(self.resources) and not self.allowed


def read_default_mode(
    global_settings: dict[str, Any], source: str = "settings.json"
) -> tuple[TrustMode, str | None]:
    """``defaultProjectTrust`` from the agent-dir settings only, and a warning for a bad value."""
    value = global_settings.get("defaultProjectTrust")
    if value is None:
        return "ask", None
    for mode in TRUST_MODES:
        if value == mode:
            return mode, None
    return (
        "ask",
        f'{source}: ignoring setting "defaultProjectTrust" = {json.dumps(value)}: expected ask, always or never',
    )


def load_default_mode(agent_dir: str | os.PathLike[str]) -> tuple[TrustMode, str | None]:
    path = Path(agent_dir) / "settings.json"
    try:
        data = load_json_file(path)
    except (ConfigFileError, OSError):
        return "ask", None  # the settings loader reports the broken file
    return read_default_mode(data if isinstance(data, dict) else {}, str(path))


def resolve_trust(
    cwd: str | os.PathLike[str],
    agent_dir: str | os.PathLike[str],
    *,
    override: bool | None = None,
    default_mode: TrustMode | None = None,
) -> TrustDecision:
    """Decide for ``cwd``: command line, then the closest saved decision (with an unchanged fingerprint),
    then ``defaultProjectTrust`` (read from the agent dir when ``default_mode`` is not given)."""
    here = canonical(cwd)
    resources = discover_protected(here)
    warnings: list[str] = []
    if default_mode is None:
        default_mode, warning = load_default_mode(agent_dir)
        warnings += [warning] if warning else []
    if override is not None:
        return TrustDecision(here, resources, override, "cli", default_mode, warnings=warnings)

    store = TrustStore(agent_dir)
    saved: tuple[str, bool] | None = None
    try:
        saved = store.closest(here)
    except TrustFileError as exc:
        warnings.append(str(exc))
    changed: FingerprintChange | None = None
    if saved is not None:
        folder, value = saved
        if not value or not resources:
            return TrustDecision(here, resources, value, "saved", default_mode, folder, warnings=warnings)
        current = fingerprint(resources)
        try:
            recorded = store.fingerprint_for(here)
            if recorded is None:
                store.save_fingerprint(here, current)  # first use of this decision here: the baseline
            else:
                changed = compare(recorded, current)
        except (TrustFileError, OSError) as exc:
            warnings.append(f"project trust fingerprint: {exc}")
        if changed is None:
            return TrustDecision(here, resources, True, "saved", default_mode, folder, warnings=warnings)
    if not resources:
        return TrustDecision(here, resources, True, "none-needed", default_mode, warnings=warnings)
    trusted = {"ask": None, "always": True, "never": False}[default_mode]
    return TrustDecision(
        here, resources, trusted, "default", default_mode, saved[0] if saved else None, changed, warnings
    )


def remember(
    decision: TrustDecision, trusted: bool, agent_dir: str | os.PathLike[str], folder: str | None = None
) -> str:
    """Save ``trusted`` for ``folder`` (default: the decision's cwd) and, when trusting, the fingerprint of
    what was trusted. Returns the saved folder. Raises TrustFileError or OSError (nothing half-written)."""
    store = TrustStore(agent_dir)
    key = store.save(folder or decision.cwd, trusted)
    if trusted:
        store.save_fingerprint(decision.cwd, fingerprint(decision.resources))
    return key


def skipped_notice(decision: TrustDecision) -> str:
    """The one line print/json/rpc modes write when protected project resources were not loaded."""
    why = "changed since it was trusted" if decision.changed else "not trusted"
    kinds = sorted({r.kind for r in decision.resources})
    return (
        f"Project resources in {decision.cwd} were skipped ({why}: {', '.join(kinds)}). "
        "Use -a/--approve to load them for this run, or trust the folder in interactive pi (/trust)."
    )
