"""What a fresh ``pi --no-session -p hi`` over the OpenAI APIs loads and builds (issue 15: the print
path's CPU is mostly imports and pydantic schema building, so what it needs not is kept off it).

One fresh interpreter runs the command's entry point against the loopback server, then reports which
lazily built schemas exist.
"""

from __future__ import annotations

import pytest

from tests.fresh_interpreter import run_fresh
from tests.modes import scripts
from tests.modes.harness import make_env

SCRIPT = """
import sys
from pi_app.cli import main

code = main(["--no-session", "-p", "hi", "--model", "loop/loop-model"])
import openai._models
import pi_app.ai.types as types
print("exit", code)
# the SDK builds (and caches) a pydantic TypeAdapter per field type while it types a chunk or event
print("sdk type adapters", openai._models._CachedTypeAdapter.cache_info().currsize)
print("message adapter built", types._message_adapter is not None)
print("extensions imported", "pi_app.extensions" in sys.modules)
"""


@pytest.mark.parametrize("api", ["openai-completions", "openai-responses"])
def test_a_fresh_print_run_types_no_sdk_event_builds_no_message_adapter_and_no_extension_runtime(
    tmp_path, loopback, api
):
    env = make_env(tmp_path)
    env.write_models(loopback.url, api)
    loopback.add(scripts.text(api, "hello"))
    done = run_fresh(SCRIPT, cwd=env.project, env=env.env())
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "hello"
    assert lines[1:] == [
        "exit 0",
        "sdk type adapters 0",
        "message adapter built False",
        "extensions imported False",  # the built-in mcp alone, without mcp.json, would do nothing
    ]


def test_every_builtin_extension_is_one_the_idle_check_knows() -> None:
    """A new built-in must be judged by ``startup._only_idle_mcp`` before print runs may skip loading it."""
    from pi_app.extensions.builtin import BUILTINS
    from pi_app.modes.startup import IDLE_CHECKED_BUILTINS

    assert sorted(BUILTINS) == sorted(IDLE_CHECKED_BUILTINS)
