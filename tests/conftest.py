"""Shared fixtures: an isolated agent dir, a clean faux provider, deterministic Textual settings."""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# Snapshot determinism (dependency-notes §7): these change what Textual draws.
for _var in ("NO_COLOR", "TEXTUAL_THEME", "FORCE_COLOR"):
    os.environ.pop(_var, None)
os.environ["TEXTUAL_ANIMATIONS"] = "none"
# Snapshots are drawn in true colour whatever terminal runs the tests (the app uses 256-colour themes when
# the terminal reports only 256; the tests for those give the app a 256-colour console themselves).
os.environ["COLORTERM"] = "truecolor"


def pytest_configure(config: pytest.Config) -> None:
    """Compile the project's bytecode once, in the controlling process, before any worker starts.

    Where PYTHONDONTWRITEBYTECODE is set (this workplace and its CI set it) nothing else ever writes it, so
    every xdist worker and every ``pi`` subprocess a test starts would compile ~190 modules from source again.
    Reading cached bytecode is still allowed under that variable; only writing is off.
    """
    if hasattr(config, "workerinput"):  # an xdist worker: the controller has done it
        return
    import compileall

    root = Path(__file__).resolve().parent.parent
    for package in ("pi_app", "widgets", "themes", "tests"):
        compileall.compile_dir(root / package, quiet=1, workers=1)
    _warm_assertion_rewrites(root / "tests")


def _warm_assertion_rewrites(tests: Path) -> None:
    """Write pytest's assertion-rewritten bytecode of every test module once, here, on all cores.

    Otherwise, on a fresh checkout, every xdist worker starts at the same moment, finds no cached rewrite and
    rewrites all of them itself (~6 s of CPU each: 4 workers on 2 cores cost ~13 s of the suite's wall
    time). Uses pytest's own rewriter and cache file format (pinned pytest); any failure just leaves the
    rewriting to the workers, as before.
    """
    from concurrent.futures import ProcessPoolExecutor

    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    todo = [
        fn
        for fn in tests.rglob("*.py")
        if (fn.name.startswith("test_") or fn.name == "conftest.py")
        and rewrite._read_pyc(fn, _rewritten_pyc(fn, rewrite.PYC_TAIL), lambda *_: None) is None
    ]
    if not todo:
        return
    with ProcessPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(_rewrite_one, todo, chunksize=8))


def _rewritten_pyc(fn: Path, tail: str) -> Path:
    return fn.parent / "__pycache__" / (fn.name[:-3] + tail)


def _rewrite_one(fn: Path) -> None:
    import ast
    import contextlib

    from _pytest.assertion import rewrite

    with contextlib.suppress(Exception):  # a module that fails here fails (and is reported) when imported
        source = fn.read_bytes()
        stat = os.stat(fn)
        tree = ast.parse(source, filename=str(fn))
        rewrite.rewrite_asserts(tree, source, str(fn), None)
        code = compile(tree, str(fn), "exec", dont_inherit=True)
        pyc = _rewritten_pyc(fn, rewrite.PYC_TAIL)
        pyc.parent.mkdir(exist_ok=True)
        tmp = pyc.with_name(f"{pyc.name}.{os.getpid()}")
        with open(tmp, "wb") as fp:
            rewrite._write_pyc_fp(fp, stat, code)
        os.replace(tmp, pyc)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: two workers per core. A good share of the suite waits rather than computes (``pi``
    processes starting, MCP servers importing their SDK, ptys, loopback servers), so on this 2-core
    machine 4 workers finish in ~150 s where 2 take ~200 s (same CPU time)."""
    return max(2, 2 * (os.cpu_count() or 1))


@pytest.hookimpl(wrapper=True)
def pytest_collection(session: pytest.Session) -> Iterator[object]:
    """Let pytest cache the assertion-rewritten test modules while it imports them.

    Under PYTHONDONTWRITEBYTECODE pytest never writes its rewritten ``*-pytest-*.pyc``, so every worker parsed
    and rewrote all ~190 test modules on every run (~4 s of CPU each). The cache is pytest's own: keyed on the
    source's mtime and size, written atomically (workers race safely); nothing else is written meanwhile
    that the controller has not already compiled (see pytest_configure).
    """
    was = sys.dont_write_bytecode
    sys.dont_write_bytecode = False
    try:
        return (yield)
    finally:
        sys.dont_write_bytecode = was


def pytest_collection_finish(session: pytest.Session) -> None:
    """Keep the cyclic GC off what collection imported, and let it run less often.

    Everything alive now (Textual, pydantic and the SDKs' classes, the project's modules) lives until the
    worker exits, yet each full collection would walk all of it again; frozen, only what tests create is
    walked. A gen-0 threshold of 10,000 instead of 700 trades ~10 MB of not-yet-collected cycles for far fewer
    collections. Together ~20 % of the suite's CPU. Explicit ``gc.collect()`` and reference counting are
    unchanged, so nothing a test checks depends on this; only when garbage cycles are freed.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 20)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` first (stable otherwise): under ``--dist worksteal`` a long test started last
    would keep one worker busy after the other has run out of work."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture(autouse=True)
def _isolated_agent_dir(tmp_path_factory, monkeypatch):
    """Every test gets its own agent dir and HOME, so nothing touches the real ~/.pi."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(home / ".pi" / "agent"))
    for key in (
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_OAUTH_TOKEN",
        "OPENAI_API_KEY",
        "GEMINI_API_KEY",
        "PI_FAUX_SCRIPT",
    ):
        monkeypatch.delenv(key, raising=False)
    yield


@pytest.fixture(autouse=True)
def faux():
    """The faux provider's controller, reset before and after each test."""
    from pi_app.ai.providers.faux import FAUX

    FAUX.reset()
    yield FAUX
    FAUX.reset()


@pytest.fixture
def loopback():
    """A scripted HTTP server on 127.0.0.1 (see tests/loopback/server.py)."""
    from tests.loopback.server import LoopbackServer

    with LoopbackServer() as server:
        yield server
