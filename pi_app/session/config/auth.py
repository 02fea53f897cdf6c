"""auth.json: stored credentials per provider, and API-key resolution (pi's ``AuthStorage``).

File shape: ``{"<provider>": {"type": "api_key", "key": "<literal | ENV_NAME | !command>"} |
{"type": "oauth", "access", "refresh", "expires" (ms), ...}}``. The file is created 0600 in a 0700
directory and always written atomically under a lock, changing only the provider being set, so
OAuth entries (and anything else we do not understand) are preserved byte-for-byte in meaning.

Key resolution for a provider: runtime override (``--api-key``) → auth.json api_key → auth.json oauth
access token (refreshed if a refresher is registered and it has expired) → environment variable →
the fallback resolver (models.json ``apiKey``). Unlike pi, an expired OAuth token we cannot refresh
falls through to the environment instead of yielding no key, because this port has no OAuth login.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pi_app.ai.env_keys import get_env_api_key
from pi_app.session.config import paths
from pi_app.session.config.jsonfile import atomic_write_text, dumps, loads, locked, read_text
from pi_app.session.config.values import resolve_config_value

AUTH_FILE_MODE = 0o600

Credential = dict[str, Any]


@dataclass
class OAuthRefresher:
    """How to refresh one provider's OAuth credential and turn it into an API key."""

    refresh: Callable[[Credential], Awaitable[Credential]]
    api_key: Callable[[Credential], str] = lambda cred: str(cred.get("access", ""))


def _now_ms() -> int:
    return int(time.time() * 1000)


def validate_credential(provider: str, cred: Any) -> str | None:
    """None if ``cred`` is a usable credential, else why not."""
    if not isinstance(cred, dict):
        return f'"{provider}" must be an object'
    kind = cred.get("type")
    if kind == "api_key":
        if not isinstance(cred.get("key"), str) or not cred["key"]:
            return f'"{provider}": an api_key entry needs a non-empty string "key"'
        return None
    if kind == "oauth":
        if not isinstance(cred.get("access"), str):
            return f'"{provider}": an oauth entry needs a string "access"'
        if not isinstance(cred.get("expires"), int | float):
            return f'"{provider}": an oauth entry needs a numeric "expires" (ms)'
        return None
    return f'"{provider}": unknown credential type {kind!r} (expected "api_key" or "oauth")'


class AuthStorage:
    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._memory: str | None = None  # backing text when path is None
        self._data: dict[str, Any] = {}
        self._load_error: str | None = None
        self._runtime: dict[str, str] = {}
        self._fallback: Callable[[str], str | None] | None = None
        self._refreshers: dict[str, OAuthRefresher] = {}
        self.warnings: list[str] = []
        self.reload()

    @classmethod
    def create(cls, path: Path | str | None = None) -> AuthStorage:
        return cls(Path(path) if path is not None else paths.auth_path())

    @classmethod
    def in_memory(cls, data: dict[str, Credential] | None = None) -> AuthStorage:
        storage = cls(None)
        storage._memory = json.dumps(data or {})
        storage.reload()
        return storage

    # ------------------------------------------------------------ file access
    @property
    def _source(self) -> str:
        return str(self.path) if self.path is not None else "<auth>"

    def _parse(self, text: str | None) -> dict[str, Any]:
        """Raises ValueError with a clear message when the text is not a JSON object."""
        if text is None or not text.strip():
            return {}
        data = loads(text, self._source)
        if not isinstance(data, dict):
            raise ValueError(f"{self._source}: expected a JSON object at the top level")
        return data

    def reload(self) -> None:
        """Re-read the file. One that cannot be used (not UTF-8, not JSON, unreadable) is never written
        and leaves the credentials loaded before in effect, as pi keeps them."""
        try:
            text = self._memory if self.path is None else read_text(self.path)
            data = self._parse(text)
        except (ValueError, OSError) as exc:
            if isinstance(exc, OSError):
                reason = f"{self._source}: cannot read ({exc.strerror or exc})"
            else:
                reason = str(exc)
            self._load_error = reason
            kept = "keeping the credentials loaded before" if self._data else "stored credentials are ignored"
            self.warnings.append(f"{reason}; {kept} and the file will not be changed")
            return
        self._data = data
        self._load_error = None
        for provider, cred in self._data.items():
            if problem := validate_credential(provider, cred):
                self.warnings.append(f"{self._source}: ignoring {problem}")

    def drain_warnings(self) -> list[str]:
        out, self.warnings = self.warnings, []
        return out

    def _persist(self, provider: str, cred: Credential | None) -> None:
        if self._load_error is not None:
            raise ValueError(f"cannot save credentials: {self._load_error}")
        if self.path is None:
            current = self._parse(self._memory)
            self._apply(current, provider, cred)
            self._memory = json.dumps(current)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        with locked(self.path):
            current = self._parse(read_text(self.path))  # someone else may have logged in meanwhile
            self._apply(current, provider, cred)
            atomic_write_text(self.path, dumps(current), mode=AUTH_FILE_MODE)
        self._data = current

    @staticmethod
    def _apply(data: dict[str, Any], provider: str, cred: Credential | None) -> None:
        if cred is None:
            data.pop(provider, None)
        else:
            data[provider] = copy.deepcopy(cred)

    # ------------------------------------------------------------ credentials
    def get(self, provider: str) -> Credential | None:
        cred = self._data.get(provider)
        return copy.deepcopy(cred) if isinstance(cred, dict) else None

    def set(self, provider: str, credential: Credential) -> None:
        """Store a credential (validated) and write the file. Raises ValueError on bad input."""
        if problem := validate_credential(provider, credential):
            raise ValueError(problem)
        self._data[provider] = copy.deepcopy(credential)
        self._persist(provider, credential)

    def set_api_key(self, provider: str, key: str) -> None:
        self.set(provider, {"type": "api_key", "key": key})

    def remove(self, provider: str) -> None:
        self._data.pop(provider, None)
        self._persist(provider, None)

    logout = remove

    def list(self) -> list[str]:
        return list(self._data)

    def has(self, provider: str) -> bool:
        return provider in self._data

    def get_all(self) -> dict[str, Credential]:
        return copy.deepcopy(self._data)

    def is_oauth(self, provider: str) -> bool:
        cred = self._data.get(provider)
        return isinstance(cred, dict) and cred.get("type") == "oauth"

    # ------------------------------------------------------------ key resolution
    def set_runtime_api_key(self, provider: str, key: str) -> None:
        """``--api-key``: wins over everything, never written to disk."""
        self._runtime[provider] = key

    def remove_runtime_api_key(self, provider: str) -> None:
        self._runtime.pop(provider, None)

    def set_fallback_resolver(self, resolver: Callable[[str], str | None] | None) -> None:
        self._fallback = resolver

    def register_oauth_refresher(self, provider: str, refresher: OAuthRefresher) -> None:
        self._refreshers[provider] = refresher

    def has_auth(self, provider: str) -> bool:
        """Cheap check (no commands run, no refresh): is any credential source configured?"""
        if provider in self._runtime:
            return True
        cred = self._data.get(provider)
        if isinstance(cred, dict) and validate_credential(provider, cred) is None:
            return True
        if get_env_api_key(provider):
            return True
        return bool(self._fallback and self._fallback(provider))

    def _stored_key(self, provider: str) -> tuple[str | None, bool]:
        """(key from auth.json, whether an expired oauth credential needs a refresh)."""
        cred = self._data.get(provider)
        if not isinstance(cred, dict) or validate_credential(provider, cred) is not None:
            return None, False
        if cred["type"] == "api_key":
            return resolve_config_value(cred["key"]), False
        if _now_ms() < cred["expires"]:
            refresher = self._refreshers.get(provider)
            return (refresher.api_key(cred) if refresher else cred["access"]) or None, False
        return None, True

    def get_api_key_sync(self, provider: str) -> str | None:
        """Resolve without refreshing OAuth (an expired token is skipped)."""
        if key := self._runtime.get(provider):
            return key
        key, _ = self._stored_key(provider)
        return key or get_env_api_key(provider) or (self._fallback(provider) if self._fallback else None)

    async def get_api_key(self, provider: str) -> str | None:
        """Resolve in pi's order, refreshing an expired OAuth token when a refresher is registered."""
        if key := self._runtime.get(provider):
            return key
        key, expired = self._stored_key(provider)
        if key:
            return key
        if expired and provider in self._refreshers:
            key = await self._refresh(provider)
            if key:
                return key
        return get_env_api_key(provider) or (self._fallback(provider) if self._fallback else None)

    async def _refresh(self, provider: str) -> str | None:
        refresher = self._refreshers[provider]
        # Another process may have refreshed already: re-read before spending the refresh token.
        self.reload()
        cred = self._data.get(provider)
        if not isinstance(cred, dict) or cred.get("type") != "oauth":
            return None
        if _now_ms() < cred.get("expires", 0):
            return refresher.api_key(cred)
        try:
            fresh = await refresher.refresh(copy.deepcopy(cred))
        except Exception as exc:  # network or revoked token: report, fall back to other sources
            self.warnings.append(f'OAuth refresh for "{provider}" failed: {exc}')
            return None
        fresh = {**fresh, "type": "oauth"}
        self.set(provider, fresh)
        return refresher.api_key(fresh)
