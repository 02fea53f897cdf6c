"""What ``ctx.ui`` registrations leave with the runtime: autocomplete providers belong to their extension,
so ``/reload`` replaces them instead of piling them up."""

from __future__ import annotations

from .helpers import session_with, write_ext

EXT = """
def register(pi):
    pi.on("session_start", lambda event, ctx: ctx.ui.add_autocomplete_provider(lambda current: current))
"""


async def test_reload_forgets_autocomplete_providers(tmp_path, faux):
    _, runner, errors = await session_with(tmp_path, write_ext(tmp_path / "ext", "comp.py", EXT), mode="rpc")
    assert [name for name, _ in runner.autocomplete_providers()] == ["comp"]
    await runner.reload()  # session_start (reload) adds it again, to the fresh extension
    assert [name for name, _ in runner.autocomplete_providers()] == ["comp"]
    assert errors == []
