"""auth.json: permissions, atomic per-provider writes, OAuth preservation, key resolution order."""

from __future__ import annotations

import json
import stat
import time

import pytest

from pi_app.session.config import AuthStorage, OAuthRefresher, auth_path, clear_config_value_cache
from pi_app.session.config.values import resolve_config_value, resolve_headers


@pytest.fixture(autouse=True)
def _fresh_cache():
    clear_config_value_cache()
    yield
    clear_config_value_cache()


def _oauth(expires_in_ms: int, access: str = "sk-ant-oat-access") -> dict:
    return {
        "type": "oauth",
        "access": access,
        "refresh": "r1",
        "expires": int(time.time() * 1000) + expires_in_ms,
        "accountId": "extra-field",
    }


def test_file_created_0600_and_other_entries_preserved():
    path = auth_path()
    path.parent.mkdir(parents=True)
    oauth = _oauth(3_600_000)
    path.write_text(json.dumps({"anthropic": oauth, "weird": {"type": "future", "blob": 1}}))
    auth = AuthStorage.create()
    assert any('"weird"' in w for w in auth.drain_warnings())
    auth.set_api_key("openai", "sk-openai")
    data = json.loads(path.read_text())
    assert data["anthropic"] == oauth and data["weird"] == {"type": "future", "blob": 1}
    assert data["openai"] == {"type": "api_key", "key": "sk-openai"}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    auth.remove("openai")
    assert "openai" not in json.loads(path.read_text())


def test_new_file_permissions(tmp_path):
    path = tmp_path / "new" / "auth.json"
    AuthStorage.create(path).set_api_key("groq", "g")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700


def test_concurrent_writer_not_clobbered(tmp_path):
    path = tmp_path / "auth.json"
    a = AuthStorage.create(path)
    b = AuthStorage.create(path)
    a.set_api_key("openai", "k1")
    b.set_api_key("groq", "k2")  # b loaded before a wrote; its write must keep openai
    assert set(json.loads(path.read_text())) == {"openai", "groq"}


def test_invalid_json_reported_and_untouched(tmp_path):
    path = tmp_path / "auth.json"
    path.write_text("{nope")
    auth = AuthStorage.create(path)
    warnings = auth.drain_warnings()
    assert str(path) in warnings[0] and "invalid JSON" in warnings[0]
    with pytest.raises(ValueError, match="cannot save"):
        auth.set_api_key("openai", "x")
    assert path.read_text() == "{nope"


def test_set_rejects_bad_credential():
    auth = AuthStorage.in_memory()
    with pytest.raises(ValueError, match="api_key"):
        auth.set("openai", {"type": "api_key"})


async def test_resolution_order(monkeypatch):
    auth = AuthStorage.in_memory({"anthropic": {"type": "api_key", "key": "stored"}})
    auth.set_fallback_resolver(lambda p: "from-models-json" if p in ("anthropic", "custom") else None)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    auth.set_runtime_api_key("anthropic", "runtime")
    assert await auth.get_api_key("anthropic") == "runtime"
    auth.remove_runtime_api_key("anthropic")
    assert await auth.get_api_key("anthropic") == "stored"
    auth.remove("anthropic")
    assert await auth.get_api_key("anthropic") == "from-env"
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert await auth.get_api_key("anthropic") == "from-models-json"
    assert await auth.get_api_key("custom") == "from-models-json"
    assert await auth.get_api_key("nobody") is None
    assert auth.has_auth("custom") and not auth.has_auth("nobody")


async def test_oauth_access_token_before_env(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "from-env")
    auth = AuthStorage.in_memory({"anthropic": _oauth(60_000)})
    assert await auth.get_api_key("anthropic") == "sk-ant-oat-access"
    assert auth.is_oauth("anthropic")
    expired = AuthStorage.in_memory({"anthropic": _oauth(-1000)})
    # No refresher registered: an expired token is skipped rather than sent.
    assert await expired.get_api_key("anthropic") == "from-env"


async def test_oauth_refresh_persists(tmp_path):
    path = tmp_path / "auth.json"
    path.write_text(json.dumps({"anthropic": _oauth(-1000, access="old")}))
    calls = []

    async def refresh(cred):
        calls.append(cred["refresh"])
        return {"access": "new", "refresh": "r2", "expires": int(time.time() * 1000) + 3_600_000}

    auth = AuthStorage.create(path)
    auth.register_oauth_refresher("anthropic", OAuthRefresher(refresh=refresh))
    assert await auth.get_api_key("anthropic") == "new"
    assert calls == ["r1"]
    stored = json.loads(path.read_text())["anthropic"]
    assert stored["type"] == "oauth" and stored["access"] == "new" and stored["refresh"] == "r2"
    assert await auth.get_api_key("anthropic") == "new" and calls == ["r1"]


def test_command_and_env_values(monkeypatch, tmp_path):
    counter = tmp_path / "count"
    cmd = f"!echo run >> {counter}; printf '  secret-from-cmd \\n'"
    assert resolve_config_value(cmd) == "secret-from-cmd"
    assert resolve_config_value(cmd) == "secret-from-cmd"
    assert counter.read_text().count("run") == 1  # cached for the process
    assert resolve_config_value("!exit 3") is None
    assert resolve_config_value("!true") is None  # empty output
    monkeypatch.setenv("MY_KEY_VAR", "from-var")
    assert resolve_config_value("MY_KEY_VAR") == "from-var"
    assert resolve_config_value("sk-literal") == "sk-literal"
    monkeypatch.setenv("EMPTY_VAR", "")
    assert resolve_config_value("EMPTY_VAR") == "EMPTY_VAR"
    assert resolve_headers({"a": "MY_KEY_VAR", "b": "!false"}) == {"a": "from-var"}


async def test_api_key_entry_with_command(tmp_path):
    auth = AuthStorage.in_memory({"openai": {"type": "api_key", "key": "!printf sk-cmd"}})
    assert await auth.get_api_key("openai") == "sk-cmd"
    assert auth.get_api_key_sync("openai") == "sk-cmd"


def test_command_timeout(monkeypatch):
    from pi_app.session.config import values

    monkeypatch.setattr(values, "COMMAND_TIMEOUT_S", 0.2)
    assert (
        resolve_config_value("!sleep 5; echo late") is None
    )  # "late" would be the value without the timeout


def test_config_values_interpolate_the_environment_as_pi_16(monkeypatch):
    monkeypatch.setenv("PI_TEST_KEY", "sk-123")
    monkeypatch.delenv("PI_TEST_UNSET", raising=False)
    assert resolve_config_value("$PI_TEST_KEY") == "sk-123"
    assert resolve_config_value("Bearer ${PI_TEST_KEY}") == "Bearer sk-123"
    assert resolve_config_value("$PI_TEST_UNSET") is None  # nothing left: no key
    assert resolve_config_value("cost$$5 $!x") == "cost$5 !x"
    assert resolve_config_value("PI_TEST_KEY") == "sk-123"  # pi 0.73's bare name still works
    assert resolve_config_value("literal-key") == "literal-key"
