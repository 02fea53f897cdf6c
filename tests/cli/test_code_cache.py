"""The compile cache for dataclass methods and typing's forward references (issue 15, startup): classes and
references come out the same whether their code was compiled or taken from the cache, a later run compiles
nothing, and a damaged, foreign or unwritable cache is only a miss.

(No ``from __future__ import annotations`` here: the classes below need real annotations, to show the cached
``__init__`` is compiled without the cache module's own future flags.)"""

import dataclasses
import inspect
import marshal
import os
import sys
import typing
from importlib.util import MAGIC_NUMBER
from pathlib import Path
from typing import Any

import pytest

from pi_app.code_cache import CodeCache, cache_path
from tests.fresh_interpreter import run_fresh


def _classes() -> dict[str, Any]:
    """A spread of what ``@dataclass`` generates: defaults, factories, frozen, slots, order, kw_only."""

    @dataclasses.dataclass
    class Plain:
        a: int
        b: str = "x"
        c: list[int] = dataclasses.field(default_factory=list)

    @dataclasses.dataclass(frozen=True, slots=True, order=True)
    class Frozen:
        a: int
        b: tuple[int, ...] = ()

    @dataclasses.dataclass(kw_only=True)
    class KwOnly:
        a: int
        b: Plain | None = None

    # what pydantic and TypedDicts make of string annotations
    refs = [typing.ForwardRef("dict[str, list[int]]"), typing.ForwardRef("*tuple[int, str]")]
    return {"Plain": Plain, "Frozen": Frozen, "KwOnly": KwOnly, "refs": refs}


def _behaviour(cls: dict[str, Any]) -> list[Any]:
    plain, frozen, kw = cls["Plain"], cls["Frozen"], cls["KwOnly"]
    p = plain(1)
    p.c.append(2)
    out: list[Any] = [repr(p), p == plain(1, "x", [2]), plain(1).c is not plain(1).c]
    f = frozen(1, (2,))
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.a = 3
    out += [repr(f), hash(f) == hash(frozen(1, (2,))), frozen(1) < frozen(2), frozen.__slots__]
    out += [repr(kw(a=1)), str(inspect.signature(kw)), str(inspect.signature(plain))]
    # compiled without our module's ``from __future__ import annotations``: real types, not strings
    out.append({k: v for k, v in plain.__init__.__annotations__.items() if k != "return"})
    out += [(ref.__forward_arg__, ref._evaluate(None, None, frozenset())) for ref in cls["refs"]]
    return out


def _built_with(cache: CodeCache, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setitem(vars(dataclasses), "exec", cache.exec)
        m.setitem(vars(typing), "compile", cache.compile)
        return _classes()


def _plain(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What the classes do when the modules compile by themselves (the hooks another test's import of the
    cli may have installed in this process taken away meanwhile)."""
    with monkeypatch.context() as m:
        m.delitem(vars(dataclasses), "exec", raising=False)
        m.delitem(vars(typing), "compile", raising=False)
        return _behaviour(_classes())


def test_cached_methods_behave_as_compiled_ones(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = str(tmp_path / "methods")
    expected = _plain(monkeypatch)  # dataclasses' and typing's own compiling
    assert expected[-3] == {"a": int, "b": str, "c": list[int]}

    first = CodeCache(path, MAGIC_NUMBER)
    assert _behaviour(_built_with(first, monkeypatch)) == expected
    assert first.compiled > 0
    # text that does not compile raises as before, and is not cached
    with monkeypatch.context() as m:
        m.setitem(vars(typing), "compile", first.compile)
        with pytest.raises(SyntaxError, match="Forward reference must be an expression"):
            typing.ForwardRef("1 +")
    first.save()

    second = CodeCache(path, MAGIC_NUMBER)
    assert _behaviour(_built_with(second, monkeypatch)) == expected
    assert second.compiled == 0  # every method came from the file
    Path(path).write_bytes(b"sentinel")
    second.save()  # nothing new: the file is not written
    assert Path(path).read_bytes() == b"sentinel"


@pytest.mark.parametrize(
    "content",
    [b"", b"not marshal at all", marshal.dumps((b"other magic", {})), marshal.dumps(("x", [1, 2]))],
    ids=["empty", "garbage", "foreign-magic", "wrong-shape"],
)
def test_a_damaged_or_foreign_file_is_a_miss(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: bytes
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "methods"
    path.write_bytes(content)
    cache = CodeCache(str(path), MAGIC_NUMBER)
    assert _behaviour(_built_with(cache, monkeypatch)) == _plain(monkeypatch)
    assert cache.compiled > 0
    cache.save()  # replaced by a good one
    again = CodeCache(str(path), MAGIC_NUMBER)
    _built_with(again, monkeypatch)
    assert again.compiled == 0


def test_a_non_code_value_is_compiled_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    path = tmp_path / "methods"
    first = CodeCache(str(path), MAGIC_NUMBER)
    _built_with(first, monkeypatch)
    first.save()
    magic, codes = marshal.loads(path.read_bytes())
    path.write_bytes(marshal.dumps((magic, dict.fromkeys(codes, "not code"))))
    cache = CodeCache(str(path), MAGIC_NUMBER)
    assert _behaviour(_built_with(cache, monkeypatch)) == _plain(monkeypatch)
    assert cache.compiled == len(codes)


def test_nothing_is_written_without_bytecode_writing_or_a_writable_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    path = tmp_path / "methods"
    cache = CodeCache(str(path), MAGIC_NUMBER)
    _built_with(cache, monkeypatch)
    cache.save()
    assert not path.exists()

    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    cache = CodeCache(str(blocked / "methods"), MAGIC_NUMBER)  # its directory cannot be made
    _built_with(cache, monkeypatch)
    cache.save()  # skipped quietly
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_the_cli_installs_it_beside_its_bytecode() -> None:
    from importlib.util import cache_from_source

    from pi_app import code_cache

    path = cache_path()
    assert path is not None and Path(path).parent == Path(cache_from_source(code_cache.__file__)).parent
    assert sys.implementation.cache_tag in Path(path).name
    done = run_fresh(
        """
        import dataclasses
        import pi_app.cli
        from pi_app.code_cache import CodeCache
        import typing
        print(type(vars(dataclasses)["exec"].__self__).__name__, type(vars(typing)["compile"].__self__).__name__)
        """
    )
    assert done.stdout.split() == [CodeCache.__name__] * 2, done.stderr


def test_a_second_start_compiles_nothing(tmp_path: Path) -> None:
    """End to end, across processes: the first start writes the cache (here under a bytecode prefix of its
    own), the next one takes every dataclass method and forward reference from it."""
    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "pyc")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    script = """
        import pi_app.cli
        import pi_app.session.agent_session
        from pi_app import code_cache
        cache = code_cache._installed
        print(cache.compiled, len(cache._used), cache.path)
        """
    first = run_fresh(script, env=env)
    compiled, used, path = first.stdout.split()
    assert int(compiled) > 100 and path.startswith(str(tmp_path)), first.stderr
    assert Path(path).is_file()
    second = run_fresh(script, env=env)
    compiled, used_again, _ = second.stdout.split()
    assert (int(compiled), used_again) == (0, used), second.stderr
