"""pi 1.6's command line: tool selection, session ids, TUI mode, sub-commands, flags not honoured yet.
Error strings are pi 1.6's, measured by running it."""

import pytest

from pi_app.cli_args import CliError, parse_args
from pi_app.tool_selection import ToolSelection, resolve_tools

ALL = ["read", "bash", "edit", "write", "grep", "find", "ls"]


@pytest.mark.parametrize(
    ("argv", "tools"),
    [
        (["-t", "read,ls"], ["read", "ls"]),
        (["--tools", "ls,read"], ["ls", "read"]),
        (["-t", "+grep,-write"], ["read", "bash", "edit", "grep"]),
        (["-t", "-bash"], ["read", "edit", "write"]),
        (["-t", "*"], ALL),
        (["-t", "*r*"], ["read", "write", "grep"]),
        (["-xt", "b*"], ["read", "edit", "write"]),
        (["--exclude-tools", "edit,write"], ["read", "bash"]),
        (["-t", "*", "-xt", "bash", "-xt", "e*"], ["read", "write", "grep", "find", "ls"]),
        (["-nt"], []),
        (["--no-tools", "-t", "read"], ["read"]),
        (["-nbt"], []),
        (["-nbt", "-t", "+ls"], ["ls"]),
        (["-t", ""], []),
    ],
)
def test_tool_selection(argv: list[str], tools: list[str]) -> None:
    args = parse_args(argv)
    assert args.tools == tools
    assert args.warnings == []


def test_no_tool_flags_leave_the_defaults_to_the_session() -> None:
    args = parse_args(["hi"])
    assert (args.tools, args.tool_selection) == (None, None)


def test_tool_lists_mixing_names_and_changes_are_rejected_as_pi_does() -> None:
    with pytest.raises(CliError) as err:
        parse_args(["--tools", "read,+bash"])
    assert str(err.value) == "--tools: tool names cannot be mixed with +name or -name entries"
    with pytest.raises(CliError) as err:
        parse_args(["--tools", "+*"])
    assert str(err.value) == "--tools: +name and -name entries take exact tool names, not patterns: +*"


def test_unknown_tool_names_warn() -> None:
    args = parse_args(["-t", "+teleport"])
    assert args.tools == ["read", "bash", "edit", "write"]
    assert args.warnings == [f'Warning: Unknown tool "teleport". Valid tools: {", ".join(ALL)}']


def test_resolve_tools_against_a_resumed_sessions_tools() -> None:
    sel = ToolSelection(add=["ls"], remove=["bash"])
    assert resolve_tools(sel, base=["read", "bash", "grep"]) == (["read", "grep", "ls"], [])


def test_session_id() -> None:
    assert parse_args(["--session-id", "my.session_1-x"]).session_id == "my.session_1-x"
    for bad in ["a/b", "-x", "x-", ".x", ""]:
        with pytest.raises(CliError) as err:
            parse_args([f"--session-id={bad}"])
        assert str(err.value).startswith("Session id must be non-empty, contain only alphanumeric characters")
    with pytest.raises(CliError, match=r"^--session-id cannot be combined with --continue$"):
        parse_args(["--session-id", "x", "--continue"])
    with pytest.raises(CliError, match=r"^--session-id cannot be combined with --session$"):
        parse_args(["--session", "abc", "--session-id", "x"])


def test_fork_conflicts() -> None:
    with pytest.raises(CliError, match=r"^--fork cannot be combined with --session$"):
        parse_args(["--fork", "x", "--session", "y"])
    with pytest.raises(CliError, match=r"^--fork cannot be combined with --no-session$"):
        parse_args(["--fork", "x", "--no-session"])
    assert parse_args(["--fork", "x", "--session-id", "new-id"]).session_id == "new-id"


def test_tui_mode() -> None:
    assert parse_args(["--tui-mode", "fullscreen"]).tui_mode == "fullscreen"
    args = parse_args(["--tui-mode", "regular"])
    assert args.tui_mode == "regular"
    assert args.warnings == ['Warning: --tui-mode regular is not supported; using "fullscreen"']
    with pytest.raises(CliError) as err:
        parse_args(["--tui-mode", "bogus"])
    assert str(err.value) == 'Invalid TUI mode "bogus". Valid values: regular, fullscreen'


def test_resource_flags() -> None:
    args = parse_args(
        ["-ns", "--skill", "a", "--skill", "b", "-np", "--prompt-template", "t.md", "--theme", "x.json",
         "--use-theme", "dark", "--no-themes", "-nc", "-n", "job", "--session", "0197", "--verbose",
         "--system-prompt", "S", "--append-system-prompt", "A1", "--append-system-prompt", "A2"]
    )  # fmt: skip
    assert (args.no_skills, args.skills) == (True, ["a", "b"])
    assert (args.no_prompt_templates, args.prompt_templates) == (True, ["t.md"])
    assert (args.themes, args.use_theme, args.no_themes) == (["x.json"], "dark", True)
    assert (args.no_context_files, args.name, args.session, args.verbose) == (True, "job", "0197", True)
    assert (args.system_prompt, args.append_system_prompt) == ("S", ["A1", "A2"])


def test_extension_flags_are_parsed() -> None:
    args = parse_args(["-e", "./ext.py", "--extension", "b.py"])
    assert args.extensions == ["./ext.py", "b.py"]
    assert args.warnings == []
    assert parse_args(["-ne"]).no_extensions is True


def test_unknown_long_options_wait_for_extensions_when_deferred() -> None:
    args = parse_args(["--plan", "hi"], defer_unknown=True)
    assert args.unknown_options == ["--plan"] and args.messages == ["hi"]
    with pytest.raises(CliError, match="Unknown option: --plan"):
        parse_args(["--plan", "hi"])
    again = parse_args(args.argv, {"plan": "boolean"})
    assert again.extension_flags == {"plan": True} and again.unknown_options == []


@pytest.mark.parametrize("flag", ["-x", "-zz", "-t2", "-a2", "-pc"])
def test_unknown_short_options_are_rejected(flag: str) -> None:
    with pytest.raises(CliError) as err:
        parse_args([flag, "hi"])
    assert str(err.value) == f"Unknown option: {flag}"


@pytest.mark.parametrize("command", ["list", "install", "remove", "uninstall", "update", "config", "auth"])
def test_pi_sub_commands_we_lack_say_so(command: str) -> None:
    with pytest.raises(CliError) as err:
        parse_args([command, "npm:foo"])
    assert f'"pi {command}" is not supported by this version of pi' in str(err.value)
    # not a command when it is not the first argument, or after --
    assert parse_args(["-p", command]).messages == [command]
    assert parse_args(["--", command]).messages == [command]
