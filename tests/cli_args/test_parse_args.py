"""pi's CLI flags: every option, values, repeats, positionals and the error messages."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pi_app.cli_args import CliArgs, CliError, parse_args, split_model_pattern
from pi_app.cli_help import HELP_TEXT


def test_no_arguments_gives_defaults() -> None:
    assert parse_args([]) == CliArgs()


@pytest.mark.parametrize(
    ("argv", "attr"),
    [
        (["--help"], "help"),
        (["-h"], "help"),
        (["--version"], "version"),
        (["-v"], "version"),
        (["--print"], "print"),
        (["-p"], "print"),
        (["--continue"], "continue_session"),
        (["-c"], "continue_session"),
        (["--resume"], "resume"),
        (["-r"], "resume"),
        (["--no-session"], "no_session"),
        (["--no-tools"], "no_tools"),
        (["-nt"], "no_tools"),
        (["--no-builtin-tools"], "no_builtin_tools"),
        (["-nbt"], "no_builtin_tools"),
        (["--no-context-files"], "no_context_files"),
        (["-nc"], "no_context_files"),
        (["--no-mcp"], "no_mcp"),
        (["--no-extensions"], "no_extensions"),
        (["-ne"], "no_extensions"),
        (["--no-skills"], "no_skills"),
        (["-ns"], "no_skills"),
        (["--no-prompt-templates"], "no_prompt_templates"),
        (["-np"], "no_prompt_templates"),
        (["--no-themes"], "no_themes"),
        (["--verbose"], "verbose"),
        (["--offline"], "offline"),
    ],
)
def test_boolean_flags(argv: list[str], attr: str) -> None:
    args = parse_args(argv)
    assert getattr(args, attr) is True
    # nothing else flipped (tool flags also resolve the tool list; argv keeps the line for a re-parse)
    derived = {attr, "tools", "tool_selection", "warnings", "argv"}
    others = {k: v for k, v in vars(args).items() if k not in derived}
    assert others == {k: v for k, v in vars(CliArgs()).items() if k not in derived}


@pytest.mark.parametrize(
    ("flag", "attr"),
    [
        ("--provider", "provider"),
        ("--model", "model"),
        ("--api-key", "api_key"),
        ("--system-prompt", "system_prompt"),
        ("--session", "session"),
        ("--session-dir", "session_dir"),
        ("--name", "name"),
        ("-n", "name"),
        ("--fork", "fork"),
    ],
)
def test_string_options(flag: str, attr: str) -> None:
    assert getattr(parse_args([flag, "some value"]), attr) == "some value"
    assert getattr(parse_args([f"{flag}=v2"] if flag.startswith("--") else [flag, "v2"]), attr) == "v2"


def test_repeatable_options_keep_order() -> None:
    args = parse_args(
        [
            "-e", "a.py", "--extension", "b.py",
            "--skill", "s1", "--skill", "s2",
            "--prompt-template", "t1", "--prompt-template", "t2",
            "--theme", "th1", "--theme", "th2",
            "--append-system-prompt", "x", "--append-system-prompt", "y",
        ]
    )  # fmt: skip
    assert args.extensions == ["a.py", "b.py"]
    assert args.skills == ["s1", "s2"]
    assert args.prompt_templates == ["t1", "t2"]
    assert args.themes == ["th1", "th2"]
    assert args.append_system_prompt == ["x", "y"]


def test_mode_and_thinking_values() -> None:
    for mode in ("text", "json", "rpc"):
        assert parse_args(["--mode", mode]).mode == mode
    for level in ("off", "minimal", "low", "medium", "high", "xhigh"):
        assert parse_args(["--thinking", level]).thinking == level


def test_invalid_mode_lists_valid_values() -> None:
    with pytest.raises(CliError) as err:
        parse_args(["--mode", "xml"])
    assert str(err.value) == 'Invalid mode "xml". Valid values: text, json, rpc'


def test_invalid_thinking_lists_valid_values() -> None:
    with pytest.raises(CliError) as err:
        parse_args(["--thinking", "ultra"])
    assert (
        str(err.value)
        == 'Invalid thinking level "ultra". Valid values: off, minimal, low, medium, high, xhigh, max'
    )


def test_models_and_tools_are_comma_lists() -> None:
    args = parse_args(["--models", "claude-sonnet, gpt-4o ,anthropic/*:high", "--tools", "read,grep, ls"])
    assert args.models == ["claude-sonnet", "gpt-4o", "anthropic/*:high"]
    assert args.tools == ["read", "grep", "ls"]
    assert args.warnings == []


def test_unknown_tool_is_dropped_with_warning() -> None:
    args = parse_args(["--tools", "read,teleport"])
    assert args.tools == ["read"]
    assert args.warnings == [
        'Warning: Unknown tool "teleport". Valid tools: read, bash, edit, write, grep, find, ls'
    ]


def test_export_with_and_without_output() -> None:
    args = parse_args(["--export", "s.jsonl"])
    assert (args.export, args.export_out) == ("s.jsonl", None)
    args = parse_args(["--export", "s.jsonl", "out.html"])
    assert (args.export, args.export_out, args.messages) == ("s.jsonl", "out.html", [])
    args = parse_args(["--export", "s.jsonl", "--verbose"])
    assert (args.export_out, args.verbose) == (None, True)


def test_list_models_optional_search() -> None:
    args = parse_args(["--list-models"])
    assert (args.list_models, args.list_models_search) == (True, None)
    args = parse_args(["--list-models", "sonnet"])
    assert (args.list_models, args.list_models_search) == (True, "sonnet")
    # a flag or @file after it is not the search term
    args = parse_args(["--list-models", "--offline", "@x"])
    assert (args.list_models_search, args.offline, args.file_args) == (None, True, ["x"])


def test_positionals_file_args_and_double_dash() -> None:
    args = parse_args(["@a.md", "first", "-p", "@img.png", "second", "--", "--not-a-flag", "@literal"])
    assert args.file_args == ["a.md", "img.png"]
    assert args.messages == ["first", "second", "--not-a-flag", "@literal"]
    assert args.print is True


def test_unknown_option_error_text() -> None:
    with pytest.raises(CliError) as err:
        parse_args(["--foo"])
    assert str(err.value) == "Unknown option: --foo"
    with pytest.raises(CliError, match=r"^Unknown option: --bar$"):
        parse_args(["--bar=1"])


def test_short_flags_do_not_combine() -> None:
    # pi has no bundling of short flags; "-pc" is an unknown option, not -p -c
    with pytest.raises(CliError, match=r"^Unknown option: -pc$"):
        parse_args(["-pc"])


@pytest.mark.parametrize(
    "flag",
    ["--mode", "--thinking", "--model", "--provider", "--session", "--session-dir", "--export", "-e", "--tools",
     "--models", "--skill", "--fork", "--name", "-t", "-xt", "--exclude-tools", "--session-id", "--tui-mode",
     "--use-theme", "--prompt-template", "--theme", "--append-system-prompt"],
)  # fmt: skip
def test_missing_value_is_a_clear_error(flag: str) -> None:
    with pytest.raises(CliError) as err:
        parse_args(["hello", flag])
    assert str(err.value) == f"Option {flag} requires a value"


def test_boolean_flag_rejects_inline_value() -> None:
    with pytest.raises(CliError, match="does not take a value"):
        parse_args(["--print=yes"])


def test_extension_flags() -> None:
    args = parse_args(
        ["--plan", "--depth", "3", "go"], extension_flags={"plan": "boolean", "depth": "string"}
    )
    assert args.extension_flags == {"plan": True, "depth": "3"}
    assert args.messages == ["go"]


def test_split_model_pattern() -> None:
    assert split_model_pattern("anthropic/claude-sonnet-4:high") == ("anthropic", "claude-sonnet-4", "high")
    assert split_model_pattern("sonnet:low") == (None, "sonnet", "low")
    assert split_model_pattern("gpt-4o") == (None, "gpt-4o", None)
    # a colon suffix that is not a thinking level belongs to the id
    assert split_model_pattern("openrouter/qwen/qwen3:free") == ("openrouter", "qwen/qwen3:free", None)


def test_help_text_mentions_every_flag() -> None:
    for flag in [
        "--help", "--version", "--mode", "--print", "--continue", "--resume", "--session ", "--session-dir",
        "--no-session", "--provider", "--model ", "--api-key", "--thinking", "--models", "--tools", "--no-tools",
        "--system-prompt", "--append-system-prompt", "--extension", "--skill", "--no-skills", "--prompt-template",
        "--no-prompt-templates", "--theme", "--export", "--list-models", "--verbose", "--offline", "--name",
        "--fork", "@file", "--tools, -t", "--exclude-tools", "-xt", "--no-builtin-tools", "-nbt", "-nt", "-ns", "-np",
        "--use-theme", "--no-themes", "--no-context-files", "-nc", "--session-id", "--name, -n", "--tui-mode",
        "--no-extensions", "-ne", "--extension, -e", "SYSTEM.md", "APPEND_SYSTEM.md",
    ]:  # fmt: skip
        assert flag in HELP_TEXT, flag


def test_import_stays_light() -> None:
    code = "import sys, pi_app.cli_args; print(sorted(m for m in ('pydantic', 'textual', 'anthropic', 'openai') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
