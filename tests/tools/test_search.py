import os
import sys

import pytest

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortController, AbortError
from pi_app.tools import ToolOptions
from pi_app.tools.find import FindTool
from pi_app.tools.grep import GrepTool
from pi_app.tools.search import fd_glob_matcher, locate_rg

RG = ToolOptions()
NO_RG = ToolOptions(rg_path="")
BACKENDS = pytest.mark.parametrize("opts", [RG, NO_RG], ids=["rg", "python"])


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    root = str(tmp_path_factory.mktemp("tree"))
    for i in range(100):
        d = os.path.join(root, "src", f"pkg{i}")
        os.makedirs(d)
        for j in range(100):
            with open(os.path.join(d, f"f{j}.py"), "w") as fh:
                fh.write(f"value = {i * 100 + j}\n" + ("needle here\n" if j == 7 and i < 3 else ""))
    write(f"{root}/.git/config", "needle in git\n")
    write(f"{root}/.gitignore", "ignored/\n*.log\n")
    write(f"{root}/ignored/a.txt", "needle ignored\n")
    write(f"{root}/app.log", "needle log\n")
    write(f"{root}/.hidden/secret.txt", "needle hidden\n")
    write(f"{root}/sub/.gitignore", "local.txt\n")
    write(f"{root}/sub/local.txt", "needle local\n")
    write(f"{root}/sub/kept.txt", "before\nNEEDLE kept\nafter\n")
    write(f"{root}/long.md", "needle " + "w" * 600 + "\n")
    return root


def lines_of(result):
    return result.content[0].text.split("\n\n[")[0].split("\n")


def test_locate_rg(monkeypatch, tmp_path):
    assert locate_rg() is not None and locate_rg("") is None
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    assert locate_rg() is None


def test_fd_glob_semantics():
    assert fd_glob_matcher("*.py")("a/b/c.py") and not fd_glob_matcher("*.py")("a/b/c.pyc")
    assert fd_glob_matcher("src/**/*.ts")("x/src/a/b.ts") and fd_glob_matcher("src/*.ts")("src/b.ts")
    assert not fd_glob_matcher("src/*.ts")("src/a/b.ts")
    assert fd_glob_matcher("*.{md,txt}")("R.txt") and fd_glob_matcher("f[0-2].py")("f1.py")
    assert fd_glob_matcher("readme*")("README.md") and not fd_glob_matcher("Readme*")("README.md")


@BACKENDS
async def test_grep_respects_gitignore_hidden_and_skips_git(tree, opts):
    r = await GrepTool(tree, opts).execute("1", {"pattern": "needle", "ignoreCase": True})
    got = sorted(lines_of(r))
    assert got == sorted(
        [
            ".hidden/secret.txt:1: needle hidden",
            "sub/kept.txt:2: NEEDLE kept",
            "src/pkg0/f7.py:2: needle here",
            "src/pkg1/f7.py:2: needle here",
            "src/pkg2/f7.py:2: needle here",
            "long.md:1: needle " + "w" * 493 + "... [truncated]",
        ]
    )
    assert r.content[0].text.endswith(
        "\n\n[Some lines truncated to 500 chars. Use read tool to see full lines]"
    )
    assert r.details == {"linesTruncated": True}


@BACKENDS
async def test_grep_limit_glob_literal_context(tree, opts):
    tool = GrepTool(tree, opts)
    r = await tool.execute("1", {"pattern": "value = 1", "limit": 5, "path": "src"})
    assert len(lines_of(r)) == 5
    assert r.content[0].text.endswith(
        "\n\n[5 matches limit reached. Use limit=10 for more, or refine pattern]"
    )
    assert r.details == {"matchLimitReached": 5}
    r = await tool.execute("1", {"pattern": "needle", "glob": "*.txt"})
    assert sorted(lines_of(r)) == [".hidden/secret.txt:1: needle hidden"]
    r = await tool.execute("1", {"pattern": "value = 10.", "literal": True, "path": "src/pkg0"})
    assert r.content[0].text == "No matches found"
    r = await tool.execute("1", {"pattern": "NEEDLE", "context": 1, "path": "sub"})
    assert r.content[0].text == "kept.txt-1- before\nkept.txt:2: NEEDLE kept\nkept.txt-3- after"
    r = await tool.execute("1", {"pattern": "NEEDLE", "path": "sub/kept.txt"})
    assert r.content[0].text == "kept.txt:2: NEEDLE kept"


@BACKENDS
async def test_grep_errors(tree, opts):
    with pytest.raises(ToolError, match=f"^Path not found: {tree}/missing$"):
        await GrepTool(tree, opts).execute("1", {"pattern": "x", "path": "missing"})
    with pytest.raises(ToolError, match="regex parse error"):
        await GrepTool(tree, opts).execute("1", {"pattern": "(unclosed", "path": "sub"})
    ctl = AbortController()
    ctl.abort()
    with pytest.raises(AbortError, match="^Operation aborted$"):
        await GrepTool(tree, opts).execute("1", {"pattern": "x"}, ctl.signal)


@BACKENDS
async def test_grep_byte_limit(tree, opts):
    r = await GrepTool(tree, opts).execute("1", {"pattern": "value", "limit": 5000, "path": "src"})
    assert r.content[0].text.endswith(
        "\n\n[5000 matches limit reached. Use limit=10000 for more, or refine pattern. 50.0KB limit reached]"
    )
    assert r.details["truncation"]["truncatedBy"] == "bytes"


@BACKENDS
async def test_find_all_python_files(tree, opts):
    r = await FindTool(tree, opts).execute("1", {"pattern": "*.py", "limit": 20000})
    text = r.content[0].text
    assert text.endswith("\n\n[50.0KB limit reached]") and r.details["truncation"]["truncated"]
    r = await FindTool(tree, opts).execute("1", {"pattern": "*.py"})
    assert len(lines_of(r)) == 1000
    assert r.content[0].text.endswith(
        "\n\n[1000 results limit reached. Use limit=2000 for more, or refine pattern]"
    )
    r = await FindTool(tree, opts).execute("1", {"pattern": "f1*.py", "path": "src", "limit": 100000})
    assert len(lines_of(r)) == 100 * 11 and all(line.startswith("pkg") for line in lines_of(r))


@BACKENDS
async def test_find_ignores_hidden_dirs_and_paths(tree, opts):
    tool = FindTool(tree, opts)
    r = await tool.execute("1", {"pattern": "*.txt"})
    assert sorted(lines_of(r)) == [".hidden/secret.txt", "sub/kept.txt"]
    r = await tool.execute("1", {"pattern": "*.log"})
    assert r.content[0].text == "No files found matching pattern"
    r = await tool.execute("1", {"pattern": "config"})
    assert r.content[0].text == "No files found matching pattern"  # .git is never listed
    r = await tool.execute("1", {"pattern": "pkg42"})
    assert lines_of(r) == ["src/pkg42/"]
    r = await tool.execute("1", {"pattern": "src/pkg4/*.py", "limit": 3})
    assert len(lines_of(r)) == 3 and all(line.startswith("src/pkg4/f") for line in lines_of(r))
    with pytest.raises(ToolError, match=f"^Path not found: {tree}/nope$"):
        await tool.execute("1", {"pattern": "*", "path": "nope"})
