"""Provider-neutral message model, wire-compatible with pi's JSON (camelCase field names).

Every model keeps unknown fields (``extra="allow"``) so a message written by a newer pi survives a
load/save cycle. Serialise with :func:`dump` so optional fields that are unset are omitted, as pi does.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from pi_app.ai.text import text_of as text_of  # re-exported: the one content-text helper

StopReason = Literal["stop", "length", "toolUse", "error", "aborted", "pending"]
ThinkingLevel = Literal["off", "minimal", "low", "medium", "high", "xhigh", "max"]
THINKING_LEVELS: tuple[str, ...] = ("off", "minimal", "low", "medium", "high", "xhigh", "max")
# Every level a model may offer, lowest first (clamping walks this order).
MODEL_THINKING_LEVELS = THINKING_LEVELS


def now_ms() -> int:
    return int(time.time() * 1000)


class WireModel(BaseModel):
    """Base for everything that crosses a boundary: keeps unknown fields, validates on assignment off."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    if not TYPE_CHECKING:  # (hidden from mypy: a visible __setattr__ would make every attribute settable)

        def __setattr__(self, name: str, value: Any) -> None:
            # Shared bookkeeping (see below) becomes this model's own before anything of it changes.
            if type(_get_names(self)) is _SharedNames:
                _set_names(self, set(_get_names(self)))
            if type(_get_extra(self)) is _SharedEmpty:
                _set_extra(self, {})
            super().__setattr__(name, value)


# pydantic gives every model instance a set of the names of the fields it was given and a dict of its
# unknown fields (empty almost always): for a typed message ~50% of its memory (an assistant turn with
# usage is five models and 2.6 KB of sets), and a resumed 50k-entry session holds 50k messages. So equal
# sets are one shared object and empty extras one shared dict, interned as pydantic stores them (a
# property in front of its slot: no walk, no extra pass; ~1 µs per model). A model gets its own again
# before any attribute of it is set (WireModel.__setattr__); copies (model_copy, deepcopy, pickle) get
# their own anyway. Values, equality, dumps and copies are unchanged. (Nothing may mutate
# ``model_fields_set`` or ``model_extra`` in place: nothing here does.)

_NAMES_SLOT = BaseModel.__dict__["__pydantic_fields_set__"]
_get_names = _NAMES_SLOT.__get__
_set_names = _NAMES_SLOT.__set__
_EXTRA_SLOT = BaseModel.__dict__["__pydantic_extra__"]
_get_extra = _EXTRA_SLOT.__get__
_set_extra = _EXTRA_SLOT.__set__


class _SharedEmpty(dict[str, Any]):
    """The interned empty ``__pydantic_extra__``: never mutated (WireModel.__setattr__ unshares first)."""

    __slots__ = ()


_EMPTY_EXTRA = _SharedEmpty()


def _intern_extra(model: BaseModel, extra: Any) -> None:
    _set_extra(model, _EMPTY_EXTRA if type(extra) is dict and not extra else extra)


class _SharedNames(set[str]):
    """An interned ``__pydantic_fields_set__``: never mutated (WireModel.__setattr__ unshares first)."""

    __slots__ = ()


_SHARED_NAMES: dict[frozenset[str], _SharedNames] = {}
_MAX_SHARED_NAMES = 4096  # distinct name sets interned (unknown fields from newer writers add some)
_LAST_NAMES: dict[tuple[type, int], _SharedNames] = {}  # per class and size, the last one: ~always a hit


def _intern_names(model: BaseModel, names: Any) -> None:
    if type(names) is set:
        probe = (type(model), len(names))
        shared = _LAST_NAMES.get(probe)
        if shared is None or shared != names:
            key = frozenset(names)
            shared = _SHARED_NAMES.get(key)
            if shared is None and len(_SHARED_NAMES) < _MAX_SHARED_NAMES:
                shared = _SHARED_NAMES[key] = _SharedNames(key)
            if shared is None:
                _set_names(model, names)
                return
            if len(_LAST_NAMES) < _MAX_SHARED_NAMES:
                _LAST_NAMES[probe] = shared
        names = shared
    _set_names(model, names)


_INTERNING = (property(_get_names, _intern_names), property(_get_extra, _intern_extra))


def _set_interning(on: bool) -> None:
    if on:
        setattr(WireModel, "__pydantic_fields_set__", _INTERNING[0])  # noqa: B010
        setattr(WireModel, "__pydantic_extra__", _INTERNING[1])  # noqa: B010
    else:  # pydantic's own slots (BaseModel's descriptors) take over
        delattr(WireModel, "__pydantic_fields_set__")
        delattr(WireModel, "__pydantic_extra__")


_set_interning(True)
_short_lived_depth = 0
_short_lived_gc = False  # whether the cyclic GC was on when the outermost block began
_short_lived_lock = threading.Lock()


@contextmanager
def short_lived_models() -> Iterator[None]:
    """Models made inside are dropped soon (a request's transcript, typed one message at a time to be
    encoded): their bookkeeping is left as pydantic makes it, since interning it would only save memory
    they do not keep (~2 µs per message, a tenth of a resumed 50k-message request's typing). The cyclic
    GC pauses meanwhile: these models hold no cycles and are freed as they are dropped, so its passes over
    them (one per 700 allocations, ~5 % of the time) find nothing. For synchronous stretches of code; a
    model made meanwhile elsewhere just keeps its own (equal) set."""
    global _short_lived_depth, _short_lived_gc
    with _short_lived_lock:  # (another thread's request may be encoding too)
        _short_lived_depth += 1
        if _short_lived_depth == 1:
            _set_interning(False)
            _short_lived_gc = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _short_lived_lock:
            _short_lived_depth -= 1
            if _short_lived_depth == 0:
                _set_interning(True)
                if _short_lived_gc:
                    gc.enable()


# ---------------------------------------------------------------- content blocks
class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str = ""
    textSignature: str | None = None


class ThinkingContent(WireModel):
    type: Literal["thinking"] = "thinking"
    thinking: str = ""
    thinkingSignature: str | None = None
    redacted: bool | None = None


class ImageContent(WireModel):
    type: Literal["image"] = "image"
    data: str
    mimeType: str


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thoughtSignature: str | None = None


UserContent = Annotated[Union[TextContent, ImageContent], Field(discriminator="type")]
AssistantContent = Annotated[Union[TextContent, ThinkingContent, ToolCall], Field(discriminator="type")]


# ---------------------------------------------------------------- usage
class Cost(WireModel):
    input: float = 0.0
    output: float = 0.0
    cacheRead: float = 0.0
    cacheWrite: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    input: int = 0
    output: int = 0
    cacheRead: int = 0
    cacheWrite: int = 0
    totalTokens: int = 0
    cost: Cost = Field(default_factory=Cost)


# ---------------------------------------------------------------- tools
class Tool(WireModel):
    """A tool declaration as the model sees it: JSON Schema parameters."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})


class ToolReference(WireModel):
    name: str
    namespace: str | None = None


# ---------------------------------------------------------------- messages
class SystemMessage(WireModel):
    role: Literal["system"] = "system"
    content: str | list[TextContent] = ""
    sections: dict[str, str | None] | None = None
    toolsAdded: list[Tool] | None = None
    toolsRemoved: list[ToolReference] | None = None
    timestamp: int = Field(default_factory=now_ms)


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    usage: Usage = Field(default_factory=Usage)
    stopReason: StopReason = "stop"
    errorMessage: str | None = None
    responseId: str | None = None
    responseModel: str | None = None  # the model the server says answered, when it differs from ``model``
    timestamp: int = Field(default_factory=now_ms)


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    toolCallId: str
    toolName: str
    content: list[UserContent] = Field(default_factory=list)
    details: Any = None
    isError: bool = False
    timestamp: int = Field(default_factory=now_ms)


Message = Annotated[
    Union[SystemMessage, UserMessage, AssistantMessage, ToolResultMessage], Field(discriminator="role")
]
# each LLM role's own model (what the role-tagged union validates a message of that role with)
MESSAGE_CLASSES: dict[Any, type[WireModel]] = {
    "system": SystemMessage,
    "user": UserMessage,
    "assistant": AssistantMessage,
    "toolResult": ToolResultMessage,
}
LLM_ROLES = frozenset(MESSAGE_CLASSES)
# The union's adapter costs ~45 ms of schema building: it is built only to report a message that does not
# validate (its error names the tagged union, as before), which a fresh run never meets.
_message_adapter: TypeAdapter[Any] | None = None


def parse_message(data: dict[str, Any]) -> SystemMessage | UserMessage | AssistantMessage | ToolResultMessage:
    """Validate one LLM message dict (roles system/user/assistant/toolResult)."""
    message: SystemMessage | UserMessage | AssistantMessage | ToolResultMessage
    cls = MESSAGE_CLASSES.get(data.get("role")) if type(data) is dict else None
    if cls is not None:
        # the role's own model: what the role-discriminated union validates a tagged dict with
        try:
            message = cls.__pydantic_validator__.validate_python(data)
            return message
        except ValidationError:
            pass
    global _message_adapter
    adapter = _message_adapter
    if adapter is None:
        adapter = _message_adapter = TypeAdapter(Message)
    message = adapter.validate_python(data)
    return message


def dump(obj: BaseModel) -> dict[str, Any]:
    """JSON-ready dict with pi's field names; unset optional fields are omitted."""
    return obj.model_dump(mode="json", exclude_none=True)


# ---------------------------------------------------------------- model description
class ModelCost(WireModel):
    """Prices in $ per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cacheRead: float = 0.0
    cacheWrite: float = 0.0


class Model(WireModel):
    id: str
    name: str = ""
    api: str
    provider: str
    baseUrl: str = ""
    reasoning: bool = False
    input: list[Literal["text", "image"]] = Field(
        default_factory=lambda: list[Literal["text", "image"]](["text"])
    )
    cost: ModelCost = Field(default_factory=ModelCost)
    contextWindow: int = 128000
    maxTokens: int = 16384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    # pi level -> provider value; null marks a level the model does not offer (see ai.models).
    thinkingLevelMap: dict[str, str | None] | None = None
    # Request/image limits (maxRequestBytes, images.maxPerRequest, images.resize) as pi's catalogue has them.
    inputLimits: dict[str, Any] | None = None

    def model_post_init(self, __context: Any) -> None:
        if not self.name:
            self.name = self.id


class Context(BaseModel):
    """What one model request sees."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    systemPrompt: str | None = None
    messages: list[Any] = Field(default_factory=list)
    tools: list[Tool] | None = None


def calculate_cost(model: Model, usage: Usage) -> Cost:
    """Fill ``usage.cost`` from the model's $/Mtok prices and return it."""
    c = usage.cost
    c.input = model.cost.input / 1e6 * usage.input
    c.output = model.cost.output / 1e6 * usage.output
    c.cacheRead = model.cost.cacheRead / 1e6 * usage.cacheRead
    c.cacheWrite = model.cost.cacheWrite / 1e6 * usage.cacheWrite
    c.total = c.input + c.output + c.cacheRead + c.cacheWrite
    return c


def models_are_equal(a: Model | None, b: Model | None) -> bool:
    return a is not None and b is not None and a.id == b.id and a.provider == b.provider
