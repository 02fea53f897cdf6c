import subprocess

from pi_app.tools.file_index import FileIndex, fuzzy_score
from widgets.completion import DefaultCompletionProvider


def _project(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("build/\n")
    for rel in [
        "src/pi_app/cli.py",
        "src/pi_app/session/manager.py",
        "docs/cli.md",
        "build/out.py",
        ".env.example",
    ]:
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    return tmp_path


def test_fuzzy_score_prefers_file_names_and_consecutive_letters():
    assert fuzzy_score("xyz", "src/cli.py") is None
    assert fuzzy_score("cli", "src/cli.py") > fuzzy_score("cli", "src/c/l/i.py")
    assert fuzzy_score("mgr", "session/manager.py") is not None


def test_index_honours_gitignore_and_finds_fuzzily(tmp_path):
    root = _project(tmp_path)
    index = FileIndex(str(root)).build_now()
    assert "build/out.py" not in index._files and ".env.example" in index._files
    assert index.search("sessmgr")[0] == "src/pi_app/session/manager.py"
    assert index.search("clipy")[0] == "src/pi_app/cli.py"
    assert "src/pi_app/" in index.search("pi_app/")


def test_at_completion_uses_the_index_when_ready(tmp_path):
    root = _project(tmp_path)
    index = FileIndex(str(root)).start()
    assert index.wait(10)
    provider = DefaultCompletionProvider([], root, file_index=index)
    result = provider.get_completions("look at @manag", True, False)
    assert result is not None and result.prefix == "@manag"
    assert result.items[0].value == "@src/pi_app/session/manager.py"
