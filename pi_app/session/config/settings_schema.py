"""The settings.json schema: every key pi knows, with pi's defaults and camelCase names.

Unknown keys are kept (``extra="allow"``) so a file written by a newer pi survives a round trip.
Optional keys whose default is "unset" are ``None``.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Section(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class CompactionSettings(_Section):
    enabled: bool = True
    reserveTokens: int = 16384
    keepRecentTokens: int = 20000


class BranchSummarySettings(_Section):
    reserveTokens: int = 16384
    skipPrompt: bool = False


class ProviderRetrySettings(_Section):
    timeoutMs: int | None = None
    maxRetries: int = 0
    maxRetryDelayMs: int = 60000


class RetrySettings(_Section):
    enabled: bool = True
    maxRetries: int = 3
    baseDelayMs: int = 2000
    maxDelayMs: int = 60000
    provider: ProviderRetrySettings = Field(default_factory=ProviderRetrySettings)


class TerminalSettings(_Section):
    showImages: bool = True
    clearOnShrink: bool | None = None  # unset: the PI_CLEAR_ON_SHRINK=1 environment variable decides
    imageWidthCells: int = 60


class ToolLimitSettings(_Section):
    maxLines: int | None = None
    maxBytes: int | None = None


class ToolsSettings(_Section):
    """Ours (pi has no such keys): output limits per tool and the bash default timeout."""

    maxLines: int = 2000
    maxBytes: int = 50 * 1024
    grepMaxLineLength: int = 500
    bashTimeout: float | None = None  # seconds; unset: no timeout unless the model gives one
    limits: dict[str, ToolLimitSettings] = Field(default_factory=dict)  # per tool name: read, bash, grep, ...


class BashSettings(_Section):
    """Ours: background processes a bash command starts are ended when pi exits unless this keeps them."""

    keepBackgroundProcesses: bool = False


class ImageSettings(_Section):
    autoResize: bool = True
    blockImages: bool = False
    storagePath: str | None = None


class ThinkingBudgetsSettings(_Section):
    minimal: int | None = None
    low: int | None = None
    medium: int | None = None
    high: int | None = None


class MarkdownSettings(_Section):
    codeBlockIndent: str = "  "


class WarningsSettings(_Section):
    anthropicExtraUsage: bool = True


class PackageFilter(_Section):
    source: str
    extensions: list[str] | None = None
    skills: list[str] | None = None
    prompts: list[str] | None = None
    themes: list[str] | None = None


ThinkingLevelSetting = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
QueueMode = Literal["all", "one-at-a-time"]
Transport = Literal["sse", "websocket", "auto"]
DoubleEscapeAction = Literal["tree", "fork", "none"]
TreeFilterMode = Literal["default", "no-tools", "user-only", "labeled-only", "all"]

DEFAULT_THINKING_LEVEL: ThinkingLevelSetting = "medium"


class Settings(_Section):
    """Effective settings. Field order follows pi's settings documentation."""

    # model & thinking
    defaultProvider: str | None = None
    defaultModel: str | None = None
    defaultThinkingLevel: ThinkingLevelSetting | None = None  # unset: DEFAULT_THINKING_LEVEL
    # startup level per model, keyed by exact "provider/modelId" (pi 1.6); beats defaultThinkingLevel
    modelThinkingLevels: dict[str, ThinkingLevelSetting] | None = None
    hideThinkingBlock: bool = False
    thinkingBudgets: ThinkingBudgetsSettings | None = None
    # UI & display
    theme: str | None = None  # unset: "dark" (first run may detect the terminal background)
    quietStartup: bool = False
    collapseChangelog: bool = False
    doubleEscapeAction: DoubleEscapeAction = "tree"
    treeFilterMode: TreeFilterMode = "default"
    editorPaddingX: int = 0
    autocompleteMaxVisible: int = 5
    showHardwareCursor: bool | None = None  # unset: PI_HARDWARE_CURSOR=1 decides
    # behaviour
    compaction: CompactionSettings = Field(default_factory=CompactionSettings)
    branchSummary: BranchSummarySettings = Field(default_factory=BranchSummarySettings)
    retry: RetrySettings = Field(default_factory=RetrySettings)
    steeringMode: QueueMode = "one-at-a-time"
    followUpMode: QueueMode = "one-at-a-time"
    transport: Transport = "sse"
    httpIdleTimeoutMs: int = 300000
    websocketConnectTimeoutMs: int = 15000
    terminal: TerminalSettings = Field(default_factory=TerminalSettings)
    images: ImageSettings = Field(default_factory=ImageSettings)
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    bash: BashSettings = Field(default_factory=BashSettings)
    shellPath: str | None = None
    shellCommandPrefix: str | None = None
    npmCommand: list[str] | None = None
    enabledModels: list[str] | None = None
    markdown: MarkdownSettings = Field(default_factory=MarkdownSettings)
    warnings: WarningsSettings = Field(default_factory=WarningsSettings)
    # resources
    packages: list[str | PackageFilter] = Field(default_factory=list)
    extensions: list[str] = Field(default_factory=list)
    skills: list[str] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)
    themes: list[str] = Field(default_factory=list)
    enableSkillCommands: bool = True
    # sessions & trust [newer]
    sessionDir: str | None = None
    alwaysTrust: bool | None = None
    defaultProjectTrust: Any = None
    enableInstallTelemetry: bool | None = None
    # internal
    lastChangelogVersion: str | None = None


def section_model(key: str) -> type[_Section] | None:
    """The nested model for an object-valued key (compaction, retry, ...), else None."""
    ann = Settings.model_fields[key].annotation if key in Settings.model_fields else None
    for candidate in (ann, *getattr(ann, "__args__", ())):
        if isinstance(candidate, type) and issubclass(candidate, _Section):
            return candidate
    return None
