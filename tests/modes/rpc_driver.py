"""Driving :class:`RpcServer` in process: lines in, parsed records out, waits with timeouts."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from pi_app.modes.jsonl import JsonlWriter
from pi_app.modes.rpc_mode import RpcServer
from pi_app.session.assembly import create_agent_session
from pi_app.session.config import AuthStorage, ModelRegistry, ProviderRegistration, SettingsManager
from pi_app.session.store import SessionManager


class Collector:
    """A binary stream that parses every JSONL record written to it."""

    def __init__(self) -> None:
        self.raw = b""
        self.records: list[dict[str, Any]] = []

    def write(self, data: bytes) -> int:
        self.raw += data
        for line in data.split(b"\n"):
            if line:
                self.records.append(json.loads(line))
        return len(data)

    def flush(self) -> None:
        pass


async def make_faux_session(
    tmp_path: Path, *, persist: bool = True, settings: dict[str, Any] | None = None
) -> Any:
    project = tmp_path / "proj"
    project.mkdir(exist_ok=True)
    auth = AuthStorage.in_memory()
    registry = ModelRegistry(auth, None)
    registry.register_provider(
        "faux",
        ProviderRegistration(
            baseUrl="http://faux.invalid",
            apiKey="faux-key",
            api="faux",
            models=[{"id": "faux-1", "reasoning": True}, {"id": "faux-2", "reasoning": False}],
        ),
    )
    manager = (
        SessionManager.create(str(project), tmp_path / "sessions")
        if persist
        else SessionManager.in_memory(str(project))
    )
    retry = {"retry": {"enabled": True, "maxRetries": 2, "baseDelayMs": 1, "maxDelayMs": 10}}
    return await create_agent_session(
        project,
        tmp_path / "agent",
        model=registry.find("faux", "faux-1"),
        settings=SettingsManager.in_memory({**retry, **(settings or {})}),
        auth=auth,
        model_registry=registry,
        session=manager,
    )


class RpcDriver:
    def __init__(self, session: Any) -> None:
        self.out = Collector()
        self.server = RpcServer(session, JsonlWriter(self.out))
        self.session = session
        self._next = 0

    def send_line(self, line: str) -> None:
        self.server.handle_line(line)

    def send(self, command: dict[str, Any]) -> str:
        self._next += 1
        request_id = command.get("id", f"r{self._next}")
        self.send_line(json.dumps({"id": request_id, **command}))
        return request_id

    async def wait_for(self, predicate: Any, timeout: float = 5.0, start: int = 0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            for record in self.out.records[start:]:
                if predicate(record):
                    return record
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; records: {self.out.records[-10:]}")
            await asyncio.sleep(0.005)

    async def response(self, request_id: str, nth: int = 1, timeout: float = 5.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            found = [r for r in self.out.records if r.get("type") == "response" and r.get("id") == request_id]
            if len(found) >= nth:
                return found[nth - 1]
            if time.monotonic() > deadline:
                raise AssertionError(f"no response {request_id}; records: {self.out.records[-10:]}")
            await asyncio.sleep(0.005)

    async def call(self, command: dict[str, Any], timeout: float = 5.0) -> dict[str, Any]:
        return await self.response(self.send(command), timeout=timeout)

    async def idle(self) -> None:
        await self.server.drain()

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        return [
            r for r in self.out.records if r.get("type") != "response" and (kind is None or r["type"] == kind)
        ]
