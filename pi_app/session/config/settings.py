"""settings.json: global (``<agentDir>/settings.json``) and project (``<cwd>/.pi/settings.json``).

Loading never fails: a wrongly typed or out-of-range key becomes a warning naming the file and key path,
and only that key falls back to the other file's value or pi's default. A file that cannot be used at all
(not UTF-8, not JSON, nested too deeply, unreadable) is one warning; its last good values stay in effect
(defaults on the first load), as pi keeps them. Files are never rewritten just because they
were read. A setter changes one key: under a lock the file is re-read, only the keys changed in this
process are replaced, and the result is written atomically, so unknown keys, hand edits and other
processes' changes survive. A file that could not be parsed is never written.
"""

from __future__ import annotations

import copy
import json
import os
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, TypeAdapter, ValidationError

from pi_app.session.config import paths
from pi_app.session.config.jsonfile import ConfigFileError, atomic_write_text, dumps, loads, locked, read_text
from pi_app.session.config.settings_schema import DEFAULT_THINKING_LEVEL, Settings, section_model

Scope = Literal["global", "project"]

# the project settings read before (and without) project trust: where sessions are kept
UNTRUSTED_PROJECT_KEYS = ("sessionDir",)

# pi's numbers are JavaScript numbers: an integer beyond this is not exact there (and means nothing here)
MAX_SAFE_INTEGER = 2**53 - 1


# ---------------------------------------------------------------- pure helpers
def migrate_settings(raw: dict[str, Any]) -> dict[str, Any]:
    """Old layouts pi still reads: queueMode → steeringMode, websockets → transport, skills object → array."""
    out = dict(raw)
    if "queueMode" in out and "steeringMode" not in out:
        out["steeringMode"] = out.pop("queueMode")
    if "transport" not in out and isinstance(out.get("websockets"), bool):
        out["transport"] = "websocket" if out.pop("websockets") else "sse"
    skills = out.get("skills")
    if isinstance(skills, dict):
        if "enableSkillCommands" in skills and "enableSkillCommands" not in out:
            out["enableSkillCommands"] = skills["enableSkillCommands"]
        dirs = skills.get("customDirectories")
        if isinstance(dirs, list) and dirs:
            out["skills"] = dirs
        else:
            del out["skills"]
    return out


def deep_merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """pi's merge: ``override`` wins; when both values are objects they are merged one level deep."""
    result = dict(base)
    for key, value in override.items():
        if value is None:
            continue
        old = result.get(key)
        if isinstance(value, dict) and isinstance(old, dict):
            result[key] = {**old, **value}
        else:
            result[key] = value
    return result


@cache
def _adapter(model: type[BaseModel], key: str) -> TypeAdapter[Any]:
    annotation = model.model_fields[key].annotation
    return TypeAdapter(Any if annotation is None else annotation)


def _normalize(value: Any) -> Any:
    """16384.0 is a fine integer (JSON has one number type); anything else is kept as it is."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return int(value)
    return value


def _check_value(model: type[BaseModel], key: str, value: Any) -> str | None:
    """None if ``value`` is valid for ``model.key`` (strictly: "3" is not a number), else the reason."""
    value = _normalize(value)
    if isinstance(value, float) and (value != value or value in (float("inf"), float("-inf"))):
        return "not a finite number"
    if isinstance(value, int | float) and not isinstance(value, bool) and abs(value) > MAX_SAFE_INTEGER:
        return f"out of range (at most {MAX_SAFE_INTEGER})"
    try:
        _adapter(model, key).validate_python(value, strict=True)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        return first["msg"] + (f" (at {where})" if where else "")
    return None


def sanitize(
    raw: dict[str, Any], source: str, model: type[BaseModel] = Settings, prefix: str = ""
) -> tuple[dict[str, Any], list[str]]:
    """Drop wrongly typed known keys (recursing into sections); keep unknown keys as they are."""
    clean: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in raw.items():
        dotted = prefix + key
        if key not in model.model_fields:
            clean[key] = value
            continue
        section = section_model(key) if model is Settings else _nested_section(model, key)
        if section is not None and isinstance(value, dict):
            sub, sub_warnings = sanitize(value, source, section, dotted + ".")
            clean[key] = sub
            warnings.extend(sub_warnings)
            continue
        if value is None:
            continue  # JSON null means "unset"
        reason = _check_value(model, key, value)
        if reason is None:
            clean[key] = _normalize(value)
        else:
            warnings.append(f'{source}: ignoring setting "{dotted}" = {_shown(value)}: {reason}')
    return clean, warnings


def _shown(value: Any) -> str:
    try:
        shown = json.dumps(value, ensure_ascii=False)
    except (ValueError, RecursionError):
        shown = "[...]" if isinstance(value, list) else "{...}"
    return shown if len(shown) <= 60 else shown[:57] + "..."


def _drop_path(data: dict[str, Any], loc: list[str]) -> None:
    """Remove ``data[loc[0]][loc[1]]...`` (the whole top-level key when the path goes through a list)."""
    target: Any = data
    for i, key in enumerate(loc):
        if not isinstance(target, dict) or key not in target:
            data.pop(loc[0], None)
            return
        if i == len(loc) - 1:
            del target[key]
            return
        target = target[key]


def _nested_section(model: type[BaseModel], key: str) -> type[BaseModel] | None:
    ann = model.model_fields[key].annotation
    for candidate in (ann, *getattr(ann, "__args__", ())):
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
    return None


def parse_settings_text(text: str | None, source: str) -> tuple[dict[str, Any], list[str], str | None]:
    """(clean settings, warnings, fatal error) for one file's text; None text means "no file".

    A fatal error (the file cannot be used at all) is returned, not added to the warnings: the caller
    says what happens instead (defaults, or the values loaded before).
    """
    if text is None or not text.strip():
        return {}, [], None
    try:
        data = loads(text, source)
    except ConfigFileError as exc:
        return {}, [], str(exc)
    if not isinstance(data, dict):
        return {}, [], f"{source}: expected a JSON object at the top level, got {type(data).__name__}"
    clean, warnings = sanitize(migrate_settings(data), source)
    return clean, warnings, None


# ---------------------------------------------------------------- manager
class _ScopeState:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, Any] = {}
        self.load_error: str | None = None
        # field -> nested keys changed (None: the whole value changed)
        self.modified: dict[str, set[str] | None] = {}
        self.memory_text: str | None = None  # backing store when path is None
        self.loaded = False  # data came from a successful load (kept when a later load fails)


class SettingsManager:
    """Merged view of global + project settings with pi's defaults, and per-key persistence."""

    def __init__(
        self, global_path: Path | None, project_path: Path | None, *, project_trusted: bool = True
    ) -> None:
        # Untrusted, the project file gives only sessionDir (pi reads it before the trust decision).
        self.project_trusted = project_trusted
        self._scopes: dict[Scope, _ScopeState] = {
            "global": _ScopeState(global_path),
            "project": _ScopeState(project_path),
        }
        self._overrides: dict[str, Any] = {}
        self.warnings: list[str] = []
        self._settings = Settings()
        self.reload()

    @classmethod
    def create(
        cls,
        cwd: str | os.PathLike[str] | None = None,
        agent_dir: str | os.PathLike[str] | None = None,
        *,
        project_trusted: bool = True,
    ) -> SettingsManager:
        base = Path(agent_dir) if agent_dir is not None else paths.agent_dir()
        return cls(base / "settings.json", paths.project_settings_path(cwd), project_trusted=project_trusted)

    @classmethod
    def in_memory(cls, settings: dict[str, Any] | None = None) -> SettingsManager:
        mgr = cls(None, None)
        if settings:
            mgr._scopes["global"].memory_text = json.dumps(settings)
            mgr.reload()
        return mgr

    # ------------------------------------------------------------ loading
    def _read(self, scope: Scope) -> str | None:
        state = self._scopes[scope]
        if state.path is None:
            return state.memory_text
        return read_text(state.path)

    def _source(self, scope: Scope) -> str:
        path = self._scopes[scope].path
        return str(path) if path is not None else f"<{scope} settings>"

    def reload(self) -> None:
        """Re-read both files (warnings are appended to ``self.warnings``).

        A file that cannot be used leaves its scope as it was: the last good values (pi's behaviour), or
        nothing on the first load. It is never written while it stays unusable.
        """
        for scope in ("global", "project"):
            state = self._scopes[scope]
            warnings: list[str] = []
            try:
                data, warnings, err = parse_settings_text(self._read(scope), self._source(scope))
            except ConfigFileError as exc:
                err = str(exc)
            except OSError as exc:
                err = f"{self._source(scope)}: cannot read ({exc.strerror or exc})"
            if err is not None and scope == "project" and not self.project_trusted:
                state.data, state.load_error = {}, err  # not loaded anyway: nothing to report or keep
                continue
            if err is not None:
                state.load_error = err
                kept = "keeping the settings loaded before" if state.loaded else "using defaults"
                self.warnings.append(f"{err}; {kept}")
                continue
            if scope == "project" and not self.project_trusted:
                data = {k: v for k, v in data.items() if k in UNTRUSTED_PROJECT_KEYS}
                warnings = [w for w in warnings if any(f'"{k}' in w for k in UNTRUSTED_PROJECT_KEYS)]
            state.data, state.load_error, state.loaded = data, None, True
            state.modified.clear()
            self.warnings.extend(warnings)
        self._recompute()

    def set_project_trusted(self, trusted: bool) -> None:
        """Apply a trust decision made after loading (the TUI's trust screen, /trust): re-read the files."""
        if trusted != self.project_trusted:
            self.project_trusted = trusted
            self.reload()

    def _recompute(self) -> None:
        merged = deep_merge(self._scopes["global"].data, self._scopes["project"].data)
        merged = deep_merge(merged, self._overrides)
        self._settings = self._validated(merged)

    def _validated(self, merged: dict[str, Any]) -> Settings:
        """Settings from the merged values; a value that still fails (sanitize should have caught it) is
        dropped by its key path, never the whole lot."""
        for _ in range(50):
            try:
                return Settings.model_validate(merged)
            except ValidationError as exc:
                merged = copy.deepcopy(merged)
                for error in exc.errors():
                    loc = [str(p) for p in error.get("loc", ())]
                    self.warnings.append(f'settings: ignoring "{".".join(loc)}": {error["msg"]}')
                    _drop_path(merged, loc)
        return Settings()

    def drain_warnings(self) -> list[str]:
        out, self.warnings = self.warnings, []
        return out

    @property
    def settings(self) -> Settings:
        """The effective settings (project over global over defaults). Read-only: use the setters."""
        return self._settings

    def global_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._scopes["global"].data)

    def project_settings(self) -> dict[str, Any]:
        return copy.deepcopy(self._scopes["project"].data)

    def apply_overrides(self, overrides: dict[str, Any]) -> None:
        """In-memory overrides on top of both files (CLI flags); never persisted."""
        clean, warnings = sanitize(overrides, "<overrides>")
        self.warnings.extend(warnings)
        self._overrides = deep_merge(self._overrides, clean)
        self._recompute()

    # ------------------------------------------------------------ writing
    def set(self, key: str, value: Any, *, scope: Scope = "global") -> None:
        """Set ``key`` (``"theme"`` or ``"compaction.enabled"``) and persist it; ``None`` removes the key.

        Raises ValueError for an unknown section key or a value of the wrong type.
        """
        field, _, nested = key.partition(".")
        if value is not None:
            if nested:
                section = section_model(field)
                if section is None:
                    raise ValueError(f'setting "{field}" has no nested keys')
                reason = _check_value(section, nested, value) if nested in section.model_fields else None
            else:
                reason = _check_value(Settings, field, value) if field in Settings.model_fields else None
            if reason:
                raise ValueError(f'invalid value for setting "{key}": {reason}')
        state = self._scopes[scope]
        if nested:
            current = state.data.get(field)
            section_data = dict(current) if isinstance(current, dict) else {}
            if value is None:
                section_data.pop(nested, None)
            else:
                section_data[nested] = value
            state.data[field] = section_data
            marks = state.modified.get(field, set())
            if marks is not None:
                marks.add(nested)
            state.modified[field] = marks
        else:
            if value is None:
                state.data.pop(field, None)
            else:
                state.data[field] = copy.deepcopy(value)
            state.modified[field] = None
        self._recompute()
        self._persist(scope)

    def _persist(self, scope: Scope) -> None:
        state = self._scopes[scope]
        if state.load_error is not None:
            return  # never overwrite a file we could not read; the change stays in memory
        if state.path is None:
            state.memory_text = self._merge_into(state, state.memory_text, self._source(scope))
            state.modified.clear()
            return
        try:
            with locked(state.path):
                text = read_text(state.path)
                merged = self._merge_into(state, text, self._source(scope))
                if merged is not None:
                    atomic_write_text(state.path, merged)
            state.modified.clear()
        except ConfigFileError as exc:
            self.warnings.append(f"not saving settings: {exc}")
        except OSError as exc:
            self.warnings.append(f"{state.path}: could not save settings ({exc.strerror or exc})")

    def _merge_into(self, state: _ScopeState, text: str | None, source: str) -> str | None:
        """The file's current JSON with this process's modified keys applied; None if it is unparsable."""
        try:
            current = loads(text, source) if text and text.strip() else {}
        except ConfigFileError as exc:
            self.warnings.append(f"not saving settings: {exc}")
            return None
        if not isinstance(current, dict):
            self.warnings.append(f"{source}: not saving settings, the file is not a JSON object")
            return None
        current = migrate_settings(current)
        for field, nested_keys in state.modified.items():
            value = state.data.get(field)
            if nested_keys is None:
                if value is None:
                    current.pop(field, None)
                else:
                    current[field] = copy.deepcopy(value)
                continue
            base = current.get(field)
            section = dict(base) if isinstance(base, dict) else {}
            mine = value if isinstance(value, dict) else {}
            for key in nested_keys:
                if key in mine:
                    section[key] = copy.deepcopy(mine[key])
                else:
                    section.pop(key, None)
            current[field] = section
        return dumps(current)

    # ------------------------------------------------------------ typed accessors pi's callers use
    @property
    def default_thinking_level(self) -> str:
        return self._settings.defaultThinkingLevel or DEFAULT_THINKING_LEVEL

    def model_thinking_level(self, provider: str, model_id: str) -> str | None:
        """``modelThinkingLevels["provider/modelId"]``: the model's own startup level, if set."""
        return (self._settings.modelThinkingLevels or {}).get(f"{provider}/{model_id}")

    @property
    def theme(self) -> str:
        return self._settings.theme or "dark"

    @property
    def editor_padding_x(self) -> int:
        return max(0, min(3, self._settings.editorPaddingX))

    @property
    def autocomplete_max_visible(self) -> int:
        return max(3, min(20, self._settings.autocompleteMaxVisible))

    @property
    def clear_on_shrink(self) -> bool:
        value = self._settings.terminal.clearOnShrink
        return value if value is not None else os.environ.get("PI_CLEAR_ON_SHRINK") == "1"

    @property
    def show_hardware_cursor(self) -> bool:
        value = self._settings.showHardwareCursor
        return value if value is not None else os.environ.get("PI_HARDWARE_CURSOR") == "1"

    def thinking_budgets(self) -> dict[str, int]:
        """Custom budgets only (merge over pi_app.ai.options.DEFAULT_THINKING_BUDGETS)."""
        tb = self._settings.thinkingBudgets
        if tb is None:
            return {}
        return {k: v for k, v in tb.model_dump(exclude_none=True).items() if isinstance(v, int)}

    def set_default_model_and_provider(self, provider: str, model_id: str) -> None:
        self.set("defaultProvider", provider)
        self.set("defaultModel", model_id)

    def set_editor_padding_x(self, padding: int) -> None:
        self.set("editorPaddingX", max(0, min(3, int(padding))))

    def set_autocomplete_max_visible(self, count: int) -> None:
        self.set("autocompleteMaxVisible", max(3, min(20, int(count))))

    def set_default_thinking_level(self, value: str | None) -> None:
        self.set("defaultThinkingLevel", value)

    def set_steering_mode(self, value: str) -> None:
        self.set("steeringMode", value)

    def set_follow_up_mode(self, value: str) -> None:
        self.set("followUpMode", value)

    def set_transport(self, value: str) -> None:
        self.set("transport", value)

    def set_theme(self, value: str | None) -> None:
        self.set("theme", value)

    def set_hide_thinking_block(self, value: bool) -> None:
        self.set("hideThinkingBlock", value)

    def set_quiet_startup(self, value: bool) -> None:
        self.set("quietStartup", value)

    def set_collapse_changelog(self, value: bool) -> None:
        self.set("collapseChangelog", value)

    def set_double_escape_action(self, value: str) -> None:
        self.set("doubleEscapeAction", value)

    def set_tree_filter_mode(self, value: str) -> None:
        self.set("treeFilterMode", value)

    def set_show_hardware_cursor(self, value: bool) -> None:
        self.set("showHardwareCursor", value)

    def set_enable_skill_commands(self, value: bool) -> None:
        self.set("enableSkillCommands", value)

    def set_enabled_models(self, value: list[str] | None) -> None:
        self.set("enabledModels", value)

    def set_last_changelog_version(self, value: str) -> None:
        self.set("lastChangelogVersion", value)

    def set_compaction_enabled(self, value: bool) -> None:
        self.set("compaction.enabled", value)

    def set_retry_enabled(self, value: bool) -> None:
        self.set("retry.enabled", value)

    def set_branch_summary_skip_prompt(self, value: bool) -> None:
        self.set("branchSummary.skipPrompt", value)

    def set_show_images(self, value: bool) -> None:
        self.set("terminal.showImages", value)

    def set_clear_on_shrink(self, value: bool) -> None:
        self.set("terminal.clearOnShrink", value)

    def set_image_auto_resize(self, value: bool) -> None:
        self.set("images.autoResize", value)

    def set_block_images(self, value: bool) -> None:
        self.set("images.blockImages", value)
