"""``ctx.ui`` over RPC: pi's ``extension_ui_request`` / ``extension_ui_response`` sub-protocol.

Dialogs (select, confirm, input, editor) write a request and wait for the client's response with the same
id; a ``timeout`` resolves them with the cancel value (the client need not track it). Notifications,
status, widgets (lines of text only), the title and the editor text are fire-and-forget. What a JSON
client cannot show (Textual widgets, custom screens) fails at once with a clear error.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Sequence
from typing import Any

from pi_app.ai.abort import AbortSignal
from pi_app.extensions.types import AutocompleteFactory, NotifyLevel

Write = Callable[[dict[str, Any]], object]
_ids = itertools.count(1)


class RpcExtensionUI:
    def __init__(self, write: Write) -> None:
        self._write = write
        self._pending: dict[str, asyncio.Future[dict[str, Any]]] = {}

    # ---------------------------------------------------------------- the client's answers
    def resolve(self, response: dict[str, Any]) -> None:
        """An ``extension_ui_response``: complete the dialog with that id (unknown ids are ignored)."""
        future = self._pending.pop(str(response.get("id")), None)
        if future is not None and not future.done():
            future.set_result(response)

    def cancel_all(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_result({"cancelled": True})
        self._pending.clear()

    async def _dialog(
        self, method: str, timeout: float | None, signal: AbortSignal | None = None, **fields: Any
    ) -> dict[str, Any]:
        request_id = f"ui-{next(_ids)}"
        loop = asyncio.get_running_loop()
        future: asyncio.Future[dict[str, Any]] = loop.create_future()
        self._pending[request_id] = future
        if signal is not None:  # aborted: answer as cancelled (the client's late response is ignored)
            signal.add_listener(lambda: loop.call_soon(self.resolve, {"id": request_id, "cancelled": True}))
        request: dict[str, Any] = {"type": "extension_ui_request", "id": request_id, "method": method}
        request.update({k: v for k, v in fields.items() if v is not None})
        if timeout is not None:
            request["timeout"] = int(timeout * 1000)
        self._write(request)
        try:
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            return {"cancelled": True}
        finally:
            self._pending.pop(request_id, None)

    def _send(self, method: str, **fields: Any) -> None:
        request: dict[str, Any] = {"type": "extension_ui_request", "id": f"ui-{next(_ids)}", "method": method}
        request.update({k: v for k, v in fields.items() if v is not None})
        self._write(request)

    # ---------------------------------------------------------------- ExtensionUI
    async def select(
        self,
        title: str,
        options: Sequence[str],
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        answer = await self._dialog("select", timeout, signal, title=title, options=list(options))
        value = answer.get("value")
        return None if answer.get("cancelled") or not isinstance(value, str) else value

    async def confirm(
        self,
        title: str,
        message: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> bool:
        answer = await self._dialog("confirm", timeout, signal, title=title, message=message)
        return not answer.get("cancelled") and answer.get("confirmed") is True

    async def input(
        self,
        title: str,
        placeholder: str = "",
        *,
        timeout: float | None = None,
        signal: AbortSignal | None = None,
    ) -> str | None:
        answer = await self._dialog("input", timeout, signal, title=title, placeholder=placeholder or None)
        value = answer.get("value")
        return None if answer.get("cancelled") or not isinstance(value, str) else value

    async def editor(self, title: str, prefill: str = "") -> str | None:
        answer = await self._dialog("editor", None, None, title=title, prefill=prefill)
        value = answer.get("value")
        return None if answer.get("cancelled") or not isinstance(value, str) else value

    def notify(self, message: str, level: NotifyLevel = "info") -> None:
        self._send("notify", message=message, notifyType=level)

    def set_status(self, key: str, text: str | None) -> None:
        self._send("setStatus", statusKey=key, statusText=text)

    def set_widget(self, key: str, content: Any, placement: str = "above_editor") -> None:
        if content is not None and not (
            isinstance(content, list | tuple) and all(isinstance(line, str) for line in content)
        ):
            raise TypeError(
                "set_widget over RPC takes a list of text lines (widgets need the interactive app)"
            )
        where = "belowEditor" if placement in ("below_editor", "belowEditor") else "aboveEditor"
        self._send(
            "setWidget",
            widgetKey=key,
            widgetLines=list(content) if content is not None else None,
            widgetPlacement=where,
        )

    def set_title(self, title: str) -> None:
        self._send("setTitle", title=title)

    def set_editor_text(self, text: str) -> None:
        self._send("set_editor_text", text=text)

    def get_editor_text(self) -> str:
        return ""  # the client owns its editor; pi answers "" too

    async def custom(self, screen: Any, *, timeout: float | None = None) -> Any:
        raise TypeError(
            "custom screens need the interactive app; over RPC use select, confirm, input or editor"
        )

    def set_footer(self, widget: Any) -> None:
        return None  # as pi: a no-op over RPC (the client draws its own footer)

    def set_header(self, widget: Any) -> None:
        return None  # as pi: a no-op over RPC

    def add_autocomplete_provider(self, factory: AutocompleteFactory) -> None:
        return None  # as pi: a no-op over RPC (the client owns its editor)
