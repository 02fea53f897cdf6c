"""``--session PATH`` for a file that does not exist: one error line naming the path, exit 1, nothing created
(issue 17). An id prefix still goes through the session lookup."""

from __future__ import annotations

from tests.modes.harness import make_env


def _files(root) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_missing_session_path_is_an_error_and_creates_nothing(tmp_path):
    env = make_env(tmp_path)
    before_home, before_project = _files(env.home), _files(env.project)
    for arg, shown in (
        ("nope.jsonl", env.project / "nope.jsonl"),
        ("sub/x.jsonl", env.project / "sub" / "x.jsonl"),
        (str(tmp_path / "elsewhere.jsonl"), tmp_path / "elsewhere.jsonl"),
    ):
        for extra in ((), ("-p", "hi")):  # interactive or print: the same answer, before any terminal check
            result = env.call("--session", arg, *extra)
            assert result.returncode == 1
            assert result.stdout == ""
            assert result.stderr == f"Error: Session file not found: {shown}\n"
    assert _files(env.home) == before_home
    assert _files(env.project) == before_project
    assert not (env.project / "sessions").exists()
    assert not (tmp_path / "elsewhere.jsonl").exists()
