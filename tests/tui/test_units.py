"""Pure parts of the app: fuzzy filter, clipboard selection, command parsing, header text, footer data."""

from __future__ import annotations

from pathlib import Path

from pi_app.tui.clipboard import MemoryClipboard, SystemClipboard, system_commands
from pi_app.tui.commands import find_command, split_command
from pi_app.tui.footer_data import git_branch
from pi_app.tui.fuzzy import fuzzy_filter
from pi_app.tui.header import HeaderData, header_lines


def test_fuzzy_filter_orders_contiguous_matches_first() -> None:
    items = ["anthropic/claude-sonnet-4", "openai/gpt-4o", "openai/gpt-4o-mini", "google/gemini-2.5-pro"]
    assert fuzzy_filter(items, "", str) == items
    assert fuzzy_filter(items, "4o", str) == ["openai/gpt-4o", "openai/gpt-4o-mini"]
    assert fuzzy_filter(items, "gpt mini", str) == ["openai/gpt-4o-mini"]
    assert fuzzy_filter(items, "cls4", str) == ["anthropic/claude-sonnet-4"]  # subsequence
    assert fuzzy_filter(items, "zzz", str) == []


def test_system_clipboard_prefers_native_tools_and_falls_back_to_osc52(monkeypatch) -> None:
    import shutil

    monkeypatch.setattr(shutil, "which", lambda name: f"/usr/bin/{name}" if name == "xclip" else None)
    assert system_commands({"DISPLAY": ":0"}, "linux") == [["xclip", "-selection", "clipboard"]]
    assert system_commands({}, "linux") == []
    sent: list[str] = []
    clip = SystemClipboard(osc52=sent.append, env={})
    assert clip.copy("hello") == "osc52" and sent == ["hello"]
    assert SystemClipboard(osc52=None, env={}).copy("x") is None
    memory = MemoryClipboard(available=False)
    assert memory.copy("x") is None and memory.copies == []


def test_split_and_find_commands() -> None:
    assert split_command("/compact keep the API notes") == ("compact", "keep the API notes")
    assert split_command("/model") == ("model", "")
    assert find_command("exit") is find_command("quit")
    assert find_command("tree") is not None and find_command("nope") is None


def test_header_lines_collapse_and_expand() -> None:
    data = HeaderData(version="1.2.3", context_files=["~/AGENTS.md"], skills=["a", "b"], templates=["review"])
    collapsed = [line.plain for line in header_lines(data, expanded=False)]
    assert collapsed[0] == "pi v1.2.3"
    assert "ctrl+o for more" in collapsed[1]
    assert "[Context] ~/AGENTS.md" in collapsed and "[Prompts] /review" in collapsed
    expanded = [line.plain for line in header_lines(data, expanded=True)]
    assert "alt+up to edit all queued messages" in expanded
    assert "  ~/AGENTS.md" in expanded


def test_git_branch_from_head(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/feature/x\n")
    (tmp_path / "sub").mkdir()
    assert git_branch(str(tmp_path / "sub")) == "feature/x"
    (tmp_path / ".git" / "HEAD").write_text("0123abcd\n")
    assert git_branch(str(tmp_path)) == "detached"


def test_external_editor_command_order():
    from pi_app.tui.external_editor import editor_command

    assert editor_command({"VISUAL": "code -w", "EDITOR": "nano"}) == ["code", "-w"]
    assert editor_command({"EDITOR": "nano"}) == ["nano"]
    assert editor_command({}) == ["vi"]
