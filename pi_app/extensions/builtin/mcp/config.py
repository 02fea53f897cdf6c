"""``mcp.json``: the ``mcpServers`` shape other MCP clients share, read and checked (pure functions).

User servers come from ``<agent dir>/mcp.json``; project servers from ``<cwd>/.pi/mcp.json``, read only
once the project is trusted. A project entry replaces the user entry of the same name; a project entry
without ``command``, ``url`` or ``type`` only overrides ``enabled``, ``exposure`` and ``toolExposure`` of
the user entry and keeps the rest (``env``, ``headers``), which the project could not set itself.
Invalid entries are reported (file and server) and skipped; the other servers still load.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr, ValidationError, field_validator

Exposure = Literal["direct", "deferred", "codemode", "hidden"]
Scope = Literal["user", "project"]
EXPOSURES: tuple[str, ...] = ("direct", "deferred", "codemode", "hidden")
DEFAULT_TIMEOUT_S = 60.0
OVERRIDE_KEYS = ("enabled", "exposure", "toolExposure")
_SERVER_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_SSE_HINT = "legacy SSE transport is not supported; use the streamable HTTP URL"


def _exposure(value: Any) -> Any:
    # pi accepts "codemode-deferred" as another spelling of "codemode"
    return "codemode" if value == "codemode-deferred" else value


class ServerConfig(BaseModel):
    """One validated ``mcpServers`` entry. Unknown keys are kept (other clients add their own)."""

    model_config = ConfigDict(extra="allow", populate_by_name=True, frozen=True)

    type: Literal["stdio", "http", "streamable-http"] | None = None
    command: StrictStr | None = None
    args: list[StrictStr] = Field(default_factory=list)
    env: dict[str, StrictStr] = Field(default_factory=dict)
    cwd: StrictStr | None = None
    url: StrictStr | None = None
    headers: dict[str, StrictStr] = Field(default_factory=dict)
    timeout: float | None = Field(default=None, gt=0)
    enabled: StrictBool = True
    description: StrictStr | None = None
    exposure: Exposure = "codemode"
    tool_exposure: dict[str, Exposure] = Field(default_factory=dict, alias="toolExposure")

    @field_validator("exposure", mode="before")
    @classmethod
    def _fix_exposure(cls, value: Any) -> Any:
        return _exposure(value)

    @field_validator("tool_exposure", mode="before")
    @classmethod
    def _fix_tool_exposure(cls, value: Any) -> Any:
        return {k: _exposure(v) for k, v in value.items()} if isinstance(value, dict) else value

    @property
    def kind(self) -> Literal["stdio", "http"]:
        return "http" if self.url is not None and self.type != "stdio" else "stdio"

    @property
    def timeout_s(self) -> float:
        return self.timeout or DEFAULT_TIMEOUT_S


@dataclass(frozen=True)
class ServerEntry:
    """One configured MCP server: its name, validated config, and the mcp.json (and scope) it comes from."""

    name: str
    config: ServerConfig
    source: str  # the mcp.json that defines the server
    scope: Scope
    override: str | None = None  # the project file that toggles a user server

    @property
    def enabled(self) -> bool:
        return self.config.enabled


@dataclass
class McpConfig:
    """The user and project MCP servers merged, with the problems found and the files read."""

    servers: list[ServerEntry] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # "<file>: <problem>"
    files: list[str] = field(default_factory=list)  # the files that exist and were read

    def get(self, name: str) -> ServerEntry | None:
        return next((s for s in self.servers if s.name == name), None)


def namespace(server: str) -> str:
    """Server names differing only in ``-`` and ``_`` share a tool namespace, so only one may exist."""
    return "mcp__" + server.replace("-", "_")


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    msg = err["msg"]
    if err["type"] == "greater_than" and where == "timeout":
        return "timeout must be a positive number of seconds"
    return f"{where}: {msg}" if where else msg


def validate_server(name: str, raw: Any) -> ServerConfig | str:
    """The entry as a ServerConfig, or pi's one-line reason it is invalid."""
    if not _SERVER_NAME.match(name):
        return f'invalid server name "{name}" (use letters, digits, "_" and "-")'
    if not isinstance(raw, dict):
        return f'server "{name}" must be an object'
    if raw.get("type") == "sse":
        return f'server "{name}": {_SSE_HINT}'
    try:
        config = ServerConfig.model_validate(raw)
    except ValidationError as exc:
        return f'server "{name}": {_first_error(exc)}'
    if config.url is not None and config.type in (None, "http", "streamable-http"):
        if not re.match(r"^https?://[^/\s]+", config.url):
            return f'server "{name}": url must be an http or https URL'
        return config
    if config.command is not None and config.type in (None, "stdio"):
        return config
    return f'server "{name}" needs either "command" (stdio) or "url" (streamable HTTP)'


def is_override(raw: Mapping[str, Any]) -> bool:
    return "command" not in raw and "url" not in raw and "type" not in raw


def read_config_file(path: Path, scope: Scope, config: McpConfig) -> None:
    """Merge ``path`` into ``config`` (a missing file is no error)."""
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        return
    except OSError as exc:
        config.errors.append(f"{path}: {exc.strerror or exc}")
        return
    config.files.append(str(path))
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as exc:
        config.errors.append(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}")
        return
    servers = parsed.get("mcpServers", {}) if isinstance(parsed, dict) else None
    if not isinstance(servers, dict):
        config.errors.append(f'{path}: expected an object with an "mcpServers" object')
        return
    for name, raw in servers.items():
        if scope == "project" and isinstance(raw, dict) and is_override(raw):
            _apply_override(path, name, raw, config)
            continue
        checked = validate_server(name, raw)
        if isinstance(checked, str):
            config.errors.append(f"{path}: {checked}")
            continue
        clash = next(
            (s.name for s in config.servers if s.name != name and namespace(s.name) == namespace(name)), None
        )
        if clash is not None:
            config.errors.append(f'{path}: server "{name}" conflicts with "{clash}"')
            continue
        entry = ServerEntry(name, checked, str(path), scope)
        config.servers = [entry if s.name == name else s for s in config.servers]
        if config.get(name) is None:
            config.servers.append(entry)


def _apply_override(path: Path, name: str, raw: dict[str, Any], config: McpConfig) -> None:
    base = config.get(name)
    extra = [k for k in raw if k not in OVERRIDE_KEYS]
    if base is None:
        config.errors.append(
            f'{path}: server "{name}" needs "command" or "url", or a global server to override'
        )
        return
    if extra:
        config.errors.append(f'{path}: server "{name}": an override can only set {", ".join(OVERRIDE_KEYS)}')
        return
    merged = validate_server(name, {**base.config.model_dump(by_alias=True, exclude_unset=True), **raw})
    if isinstance(merged, str):
        config.errors.append(f"{path}: {merged}")
        return
    updated = replace(base, config=merged, override=str(path))
    config.servers = [updated if s.name == name else s for s in config.servers]


def user_config_path(agent_dir: str) -> Path:
    return Path(agent_dir) / "mcp.json"


def project_config_path(cwd: str) -> Path:
    return Path(cwd) / ".pi" / "mcp.json"


def load_mcp_config(agent_dir: str, cwd: str, project_trusted: bool) -> McpConfig:
    """Every server of the user file and (trusted projects only) the project file, disabled ones too."""
    config = McpConfig()
    read_config_file(user_config_path(agent_dir), "user", config)
    if project_trusted:
        read_config_file(project_config_path(cwd), "project", config)
    return config


# ------------------------------------------------------------------ exposure
def tool_exposure(config: ServerConfig, tool: str) -> Exposure:
    """A tool's exposure: an exact ``toolExposure`` key, else the first matching ``*`` pattern, else the
    server's."""
    table = config.tool_exposure
    if tool in table:
        return table[tool]
    for pattern, value in table.items():
        if "*" in pattern and fnmatch.fnmatchcase(tool, pattern.replace("[", "[[]")):
            return value
    return config.exposure


def effective_exposure(exposure: Exposure) -> Literal["direct", "deferred", "hidden"]:
    """This port has no codemode: codemode tools are reached like deferred ones, through ``tool_search``
    (pi treats them the same for tool exposure)."""
    return "deferred" if exposure == "codemode" else exposure


def has_direct_tools(config: ServerConfig) -> bool:
    return config.exposure == "direct" or "direct" in config.tool_exposure.values()


# ------------------------------------------------------------------ values
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ConfigValueError(ValueError):
    """A value of ``env`` or ``headers`` that cannot be resolved (names the key, never the value)."""


def resolve_value(key: str, value: str, environ: Mapping[str, str] | None = None) -> str:
    """``${VAR}`` references replaced by the environment; a whole value ``!command`` is the command's
    trimmed output. Raises ConfigValueError naming ``key`` when a variable is unset or the command fails."""
    env = os.environ if environ is None else environ
    if value.startswith("!"):
        from pi_app.session.config.values import resolve_config_value

        out = resolve_config_value(value)
        if out is None:
            raise ConfigValueError(f"Failed to resolve {key} from shell command: {value[1:]}")
        return out
    missing = [m for m in _VAR.findall(value) if m not in env]
    if missing:
        plural = "s" if len(missing) > 1 else ""
        raise ConfigValueError(
            f"Failed to resolve {key} from environment variable{plural}: {', '.join(missing)}"
        )
    return _VAR.sub(lambda m: env[m.group(1)], value)


def resolve_mapping(kind: str, values: Mapping[str, str]) -> dict[str, str]:
    return {k: resolve_value(f'{kind} "{k}"', v) for k, v in values.items()}


def expand_home(value: str) -> str:
    return str(Path.home()) + value[1:] if value.startswith("~/") else value


def server_cwd(config: ServerConfig, session_cwd: str) -> str:
    """Relative ``cwd`` values resolve against the session's directory."""
    if not config.cwd:
        return session_cwd
    return str(Path(session_cwd) / expand_home(config.cwd))
