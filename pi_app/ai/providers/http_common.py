"""Shared plumbing for the HTTP streaming providers.

SSE decoding of raw byte streams, bounded waits (idle timeout + abort racing), readable error texts for
HTTP status errors and transport failures, and small request helpers. Nothing here imports an SDK;
``httpx2`` is imported lazily inside the functions that need it.

Error texts are chosen so the session layer's retry and overflow detection can match them: status
errors start with the status code and keep the provider's own message (``"400 invalid_request_error:
prompt is too long: ..."``); transport failures start with ``"Connection error:"``.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import re
import sys
from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from pi_app.ai.abort import AbortSignal, race_abort
from pi_app.ai.options import payload_hook_active
from pi_app.ai.providers.json_body import StreamedBody
from pi_app.ai.providers.split_build import Meanwhile
from pi_app.ai.types import short_lived_models

if TYPE_CHECKING:
    import httpx2

    from pi_app.ai.options import StreamOptions
    from pi_app.ai.types import Model

T = TypeVar("T")

_LINE_END = re.compile(rb"\r\n|\r|\n")
# Longest provider body kept in an error message (bodies can be whole HTML pages).
MAX_ERROR_BODY_CHARS = 2000


# ---------------------------------------------------------------- errors
class ProviderError(Exception):
    """A provider failure whose ``str()`` is ready to be shown as ``errorMessage``."""


class StreamStalledError(ProviderError):
    def __init__(self, idle_timeout_s: float) -> None:
        super().__init__(stall_message(idle_timeout_s))
        self.idle_timeout_s = idle_timeout_s


class MalformedStreamError(ProviderError):
    """The server sent something that is not the protocol (bad JSON in a data line, ...)."""


class HttpStatusError(ProviderError):
    def __init__(self, status: int, body: Any, retry_after: str | None = None) -> None:
        super().__init__(format_http_error(status, body, retry_after))
        self.status = status
        self.body = body


def _seconds(value: float) -> str:
    return f"{value:g}"


def stall_message(idle_timeout_s: float) -> str:
    return f"Stream stalled: no data for {_seconds(idle_timeout_s)} s, request terminated"


def _error_fields(body: Any) -> tuple[str | None, str | None]:
    """(type/status, message) from the common JSON error shapes of Anthropic, OpenAI and Google."""
    if not isinstance(body, dict):
        return None, None
    err = body.get("error", body)
    if isinstance(err, str):
        return None, err
    if not isinstance(err, dict):
        return None, None
    kind = err.get("type") or err.get("status") or err.get("code")
    message = err.get("message")
    return (str(kind) if kind not in (None, "") else None), (str(message) if message else None)


def _body_text(body: Any) -> str:
    if body is None:
        return ""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        text = body.strip()
    else:
        try:
            text = json.dumps(body, ensure_ascii=False)
        except (TypeError, ValueError):
            text = str(body)
    if len(text) > MAX_ERROR_BODY_CHARS:
        text = text[:MAX_ERROR_BODY_CHARS] + "…"
    return text


def parse_error_body(body: Any) -> Any:
    """Decode a raw error body into JSON when it is JSON, else return the text."""
    if isinstance(body, bytes):
        body = body.decode("utf-8", "replace")
    if isinstance(body, str):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body


def format_http_error(status: int, body: Any, retry_after: str | None = None) -> str:
    """``"429 rate_limit_error: Too many requests"``; falls back to ``"500 <raw body>"``.

    The provider's message text is kept verbatim so overflow patterns ("prompt is too long", "input
    token count ... exceeds the maximum") still match.
    """
    body = parse_error_body(body)
    kind, message = _error_fields(body)
    if message:
        text = f"{status} {kind}: {message}" if kind else f"{status} {message}"
    else:
        raw = _body_text(body)
        text = f"{status} {raw}" if raw else f"{status} status code (no body)"
    if retry_after:
        text += f" (retry-after: {retry_after})"
    return text


def describe_transport_error(exc: BaseException, idle_timeout_s: float | None = None) -> str | None:
    """Readable text for an ``httpx2`` transport failure, or None if ``exc`` is not one."""
    try:
        import httpx2
    except ImportError:  # pragma: no cover - httpx2 is a hard dependency
        return None
    if isinstance(exc, httpx2.ReadTimeout) and idle_timeout_s is not None:
        return stall_message(idle_timeout_s)
    if isinstance(exc, httpx2.ConnectTimeout):
        return f"Connection error: timed out connecting ({exc or 'connect timeout'})"
    if isinstance(exc, httpx2.TimeoutException):
        return f"Connection error: timed out ({exc or type(exc).__name__})"
    if isinstance(exc, httpx2.RemoteProtocolError):
        return f"Connection error: connection terminated mid-stream ({exc})"
    if isinstance(exc, httpx2.TransportError):
        return f"Connection error: {exc or type(exc).__name__}"
    return None


# ---------------------------------------------------------------- SSE
@dataclass(slots=True)
class SseEvent:
    """One dispatched server-sent event: its ``event`` name, ``data`` text and ``id``."""

    event: str | None = None
    data: str = ""
    id: str | None = None

    def json(self) -> Any:
        try:
            return json.loads(self.data)
        except ValueError as exc:
            raise MalformedStreamError(malformed_data_message(self.data)) from exc


def malformed_data_message(data: str) -> str:
    snippet = data if len(data) <= 200 else data[:200] + "…"
    return f"Malformed stream data (invalid JSON): {snippet!r}"


class SseDecoder:
    """Incremental decoder for ``text/event-stream`` bytes (lines may split across chunks).

    Follows the WHATWG rules that matter for API streams: ``\\n``, ``\\r\\n`` or ``\\r`` line ends,
    comment lines (``:``) ignored, multi-line ``data`` joined with ``\\n``, a blank line dispatches.
    """

    __slots__ = ("_buf", "_event", "_data", "_id", "_pending_cr")

    def __init__(self) -> None:
        self._buf = b""
        self._event: str | None = None
        self._data: list[str] = []
        self._id: str | None = None
        self._pending_cr = False

    def feed(self, chunk: bytes) -> list[SseEvent]:
        if self._pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]  # the \n of a \r\n split across chunks
        self._pending_cr = False
        self._buf += chunk
        out: list[SseEvent] = []
        while True:
            match = _LINE_END.search(self._buf)
            if match is None:
                break
            line = self._buf[: match.start()]
            self._buf = self._buf[match.end() :]
            if match.group() == b"\r" and not self._buf:
                self._pending_cr = True  # may be the first half of a \r\n split across chunks
            ev = self._line(line.decode("utf-8", "replace"))
            if ev is not None:
                out.append(ev)
        return out

    def finish(self) -> list[SseEvent]:
        """Flush at end of stream: a final event without its blank line still counts."""
        out: list[SseEvent] = []
        if self._buf:
            ev = self._line(self._buf.decode("utf-8", "replace"))
            self._buf = b""
            if ev is not None:
                out.append(ev)
        ev = self._line("")
        if ev is not None:
            out.append(ev)
        return out

    def _line(self, line: str) -> SseEvent | None:
        if not line:
            if not self._data and self._event is None:
                return None
            ev = SseEvent(self._event, "\n".join(self._data), self._id)
            self._event, self._data = None, []
            return ev
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        if value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
        elif name == "id":
            self._id = value
        return None


async def aiter_sse(chunks: AsyncIterable[bytes]) -> AsyncIterator[SseEvent]:
    decoder = SseDecoder()
    async for chunk in chunks:
        for ev in decoder.feed(chunk):
            yield ev
    for ev in decoder.finish():
        yield ev


# ---------------------------------------------------------------- bounded waits
async def next_item(
    it: AsyncIterator[T], *, signal: AbortSignal | None = None, idle_timeout_s: float | None = None
) -> T:
    """``await anext(it)`` raced against ``signal`` and bounded by ``idle_timeout_s``.

    Raises ``StopAsyncIteration`` at the end, ``AbortError`` on abort, ``StreamStalledError`` on timeout
    (the pending read is cancelled in both cases, which closes an SDK stream's response).
    """
    read: Any = it.__anext__()
    if idle_timeout_s is not None and idle_timeout_s > 0:
        read = asyncio.wait_for(read, idle_timeout_s)
    try:
        return await race_abort(read, signal)
    except TimeoutError as exc:
        raise StreamStalledError(idle_timeout_s or 0) from exc


async def bounded(
    it: AsyncIterable[T], *, signal: AbortSignal | None = None, idle_timeout_s: float | None = None
) -> AsyncIterator[T]:
    """Iterate ``it`` with :func:`next_item` semantics for every element."""
    iterator = it.__aiter__()
    while True:
        try:
            item = await next_item(iterator, signal=signal, idle_timeout_s=idle_timeout_s)
        except StopAsyncIteration:
            return
        yield item


def make_timeout(options: StreamOptions) -> httpx2.Timeout:
    """``httpx2`` timeouts: ``read`` is the idle bound (no byte for that long fails the stream)."""
    import httpx2

    idle = options.idle_timeout_s if options.idle_timeout_s and options.idle_timeout_s > 0 else None
    return httpx2.Timeout(
        connect=options.connect_timeout_s, read=idle, write=idle, pool=options.connect_timeout_s
    )


# ---------------------------------------------------------------- request helpers
def merge_headers(*sources: dict[str, str] | None) -> dict[str, str]:
    """Later sources win; keys compared case-insensitively (the last spelling is kept)."""
    merged: dict[str, str] = {}
    for source in sources:
        for key, value in (source or {}).items():
            for existing in [k for k in merged if k.lower() == key.lower()]:
                del merged[existing]
            merged[key] = value
    return merged


def resolve_api_key(model: Model, options: StreamOptions) -> str | None:
    """``options.api_key``, else the provider's environment variable (pi's getEnvApiKey)."""
    if options.api_key:
        return options.api_key
    try:
        from pi_app.ai.env_keys import get_env_api_key
    except ImportError:  # pragma: no cover - env_keys ships with pi_app.ai
        fallback = {
            "anthropic": ("ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"),
            "google": ("GEMINI_API_KEY",),
        }
        for name in fallback.get(model.provider, ()):
            if os.environ.get(name):
                return os.environ[name]
        return None
    return get_env_api_key(model.provider)


def default_max_tokens(model: Model, options: StreamOptions) -> int:
    """pi's buildBaseOptions default: the caller's value, else min(model.maxTokens, 32000)."""
    return options.max_tokens or min(model.maxTokens, 32000)


async def apply_on_payload(payload: dict[str, Any], model: Model, options: StreamOptions) -> dict[str, Any]:
    """Let ``options.on_payload`` (sync or async) inspect or replace the request body."""
    if options.on_payload is None:
        return payload
    replaced: Any = options.on_payload(payload, model)
    if inspect.isawaitable(replaced):
        replaced = await replaced
    return replaced if isinstance(replaced, dict) else payload


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def sanitize_surrogates(text: str) -> str:
    """Drop unpaired UTF-16 surrogates (they cannot be encoded as UTF-8 and make APIs reject the body)."""
    return _LONE_SURROGATE.sub("", text)


# ---------------------------------------------------------------- TLS
_verified_context: Any = None


def http_client_options(base_url: str | None) -> dict[str, Any]:
    """``verify``/``follow_redirects`` for an httpx2 client talking to ``base_url``.

    Building a verified SSL context costs ~50 ms, and each request makes a new client: https endpoints
    share one process-wide verified context; plain-http endpoints (local Ollama, llama.cpp, test servers)
    use no TLS at all, so they skip it — with redirects off, so a redirect can never lead to an
    unverified https connection.
    """
    global _verified_context
    if (base_url or "").startswith("http://"):
        return {"verify": False, "follow_redirects": False}
    if _verified_context is None:
        import httpcore2

        _verified_context = httpcore2.default_ssl_context()
    return {"verify": _verified_context}


async def close_quietly(*resources: Any) -> None:
    """Close SDK streams/clients or httpx2 responses/clients; the connection may already be gone."""
    for res in resources:
        if res is None:
            continue
        closer = getattr(res, "aclose", None) or getattr(res, "close", None)
        try:
            result = closer() if closer is not None else None
            if inspect.isawaitable(result):
                await result
        except Exception:
            pass


def client_warm_up(
    base_url: str | None, share: float, sdk: str | None = None, client: str = ""
) -> Meanwhile | None:
    """What making a provider's HTTP client does the first time in a process, to do while a forked child
    encodes a long transcript (``split_build.Meanwhile``): import httpx2 and its transport, the ``sdk``'s
    ``client`` class with what it loads (for the anthropic SDK ~0.4 s, for openai ~80 ms), and make the TLS
    context of an https endpoint (~50 ms). None once imported. ``share`` is the child's part meanwhile."""
    if "httpcore2" in sys.modules and (sdk is None or f"{sdk}._client" in sys.modules):
        return None

    def warm() -> None:
        import httpcore2  # noqa: F401  (what the client's transport imports when it is made)
        import httpx2  # noqa: F401

        if sdk is not None:
            module = importlib.import_module(sdk)
            for name in (client, "DefaultAsyncHttpxClient", "AsyncStream"):
                getattr(module, name)  # (the deferred package bodies load what each name needs)
        http_client_options(base_url)

    return Meanwhile(warm, share)


async def request_body(
    model: Model,
    options: StreamOptions,
    one_pass: Callable[[], dict[str, Any]],
    as_dicts: Callable[[], dict[str, Any]],
) -> StreamedBody | dict[str, Any]:
    """The body to send. Without a payload hook: ``one_pass`` (the body encoded as it is built), streamed
    with its length, so the transcript is never held as typed messages, dicts or one JSON string. With one,
    or for what pydantic-core cannot encode: ``as_dicts``, after the hook (:func:`apply_on_payload`)."""
    if not payload_hook_active(options.on_payload):
        try:
            with short_lived_models():  # each message is typed, encoded and dropped
                return StreamedBody(one_pass())
        except ValueError:
            pass
    return await apply_on_payload(as_dicts(), model, options)
