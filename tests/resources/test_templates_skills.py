from datetime import date
from pathlib import Path

from pi_app.session.resources.context_files import load_context_files
from pi_app.session.resources.frontmatter import parse_frontmatter
from pi_app.session.resources.skills import expand_skill_command, format_skills_for_prompt, load_skills
from pi_app.session.resources.system_prompt import SystemPromptOptions, build_system_prompt
from pi_app.session.resources.templates import (
    expand_prompt_template,
    load_prompt_templates,
    parse_command_args,
    substitute_args,
)

GOLDEN = Path(__file__).parent / "golden_system_prompt.txt"


def test_parse_command_args_quotes():
    assert parse_command_args("a 'b c' \"d e\"  f") == ["a", "b c", "d e", "f"]
    assert parse_command_args("") == []
    # empty quoted arguments are dropped (pi), so $N does not shift; a quoted space is an argument
    assert parse_command_args("x ''") == ["x"]
    assert parse_command_args('"" " "') == [" "]
    assert parse_command_args('"" b') == ["b"]


def test_substitute_all_forms():
    args = ["one", "two", "three", "four"]
    assert substitute_args("$1-$2-$9", args) == "one-two-"
    assert substitute_args("${@:2}", args) == "two three four"
    assert substitute_args("${@:2:2}", args) == "two three"
    assert substitute_args("$@|$ARGUMENTS", args) == "one two three four|one two three four"
    # values are never substituted again
    assert substitute_args("$1 $2", ["$2", "x"]) == "$2 x"


def test_templates_discovery_and_expansion(tmp_path):
    agent = tmp_path / "agent"
    (agent / "prompts").mkdir(parents=True)
    (agent / "prompts" / "review.md").write_text(
        "---\ndescription: Review code\n---\nReview $1 focusing on ${@:2}"
    )
    proj = tmp_path / "proj"
    (proj / ".pi" / "prompts").mkdir(parents=True)
    (proj / ".pi" / "prompts" / "fix.md").write_text("\nFix the bug described here: $ARGUMENTS\n")
    (proj / ".pi" / "prompts" / "review.md").write_text("dup")
    res = load_prompt_templates(str(proj), str(agent))
    by = {t.name: t for t in res.templates}
    assert (by["review"].description, by["review"].source) == ("Review code", "user")
    assert (by["fix"].description, by["fix"].source) == ("Fix the bug described here: $ARGUMENTS", "project")
    assert any("already defined" in w for w in res.warnings)
    assert (
        expand_prompt_template("/review a.py speed memory", res.templates)
        == "Review a.py focusing on speed memory"
    )
    assert expand_prompt_template("/unknown x", res.templates) == "/unknown x"
    assert expand_prompt_template("plain", res.templates) == "plain"


def test_frontmatter_lists_and_maps_are_yaml():
    fm = parse_frontmatter("---\nname: x\nallowed-tools:\n  - read\n  - bash\nmetadata:\n  a: 1\n---\nbody\n")
    assert fm.data["allowed-tools"] == ["read", "bash"]
    assert fm.data["metadata"] == {"a": 1}
    assert fm.body == "body"
    assert fm.errors == []


def test_frontmatter_invalid_yaml_names_line_and_column():
    fm = parse_frontmatter("---\nname: x\nmetadata:\n  a: 1\nbad line\n---\nbody\n")
    assert fm.data == {}
    assert len(fm.errors) == 1 and "line 5, column 9" in fm.errors[0], fm.errors
    fm = parse_frontmatter("---\nname: x\ndescription: a: b\n---\n")
    assert "line 3, column 15" in fm.errors[0], fm.errors


def test_frontmatter_block_scalars():
    text = "---\ndescription: |\n  Line one\n  Line two\nfolded: >\n  Line one\n  Line two\n---\nBody"
    fm = parse_frontmatter(text)
    assert fm.data["description"] == "Line one\nLine two\n"  # clip chomping keeps one newline
    assert fm.data["folded"] == "Line one Line two"
    assert fm.errors == []


def test_frontmatter_body_is_trimmed_and_no_frontmatter_is_kept():
    assert parse_frontmatter("---\ndescription: d\n---\n\nHello $1\n\n").body == "Hello $1"
    assert parse_frontmatter("---\r\ndescription: d\r\n---\r\n\r\nHi").body == "Hi"
    assert parse_frontmatter("plain\n").body == "plain\n"
    assert parse_frontmatter("---\nnot closed\n").errors == ["frontmatter is not closed with ---"]


def _make_skills(root: Path) -> None:
    (root / "pdf-tools").mkdir(parents=True)
    (root / "pdf-tools" / "SKILL.md").write_text(
        "---\nname: pdf-tools\ndescription: Work with <PDF> files & forms\n---\n# PDF\nUse scripts/x.py\n"
    )
    (root / "Bad_Name").mkdir()
    (root / "Bad_Name" / "SKILL.md").write_text("---\ndescription: has a bad name\n---\nbody")
    (root / "nodesc").mkdir()
    (root / "nodesc" / "SKILL.md").write_text("---\nname: nodesc\n---\nbody")
    (root / "hidden").mkdir()
    (root / "hidden" / "SKILL.md").write_text(
        "---\nname: hidden\ndescription: internal\ndisable-model-invocation: true\n---\nsecret"
    )


def test_skills_validation_warnings_never_crash(tmp_path):
    agent = tmp_path / "agent"
    _make_skills(agent / "skills")
    res = load_skills(str(tmp_path / "proj"), str(agent))
    names = [s.name for s in res.skills]
    assert names == ["Bad_Name", "hidden", "pdf-tools"]
    assert any("no description" in w for w in res.warnings)
    assert any("lowercase" in w for w in res.warnings)
    block = format_skills_for_prompt(res.skills)
    assert "<name>hidden</name>" not in block
    assert "Work with &lt;PDF&gt; files &amp; forms" in block


def test_skill_command_expansion(tmp_path):
    _make_skills(tmp_path / "skills")
    res = load_skills(
        str(tmp_path), str(tmp_path), include_defaults=False, extra_paths=[str(tmp_path / "skills")]
    )
    out = expand_skill_command("/skill:pdf-tools fill the form", res.skills)
    skill_dir = tmp_path / "skills" / "pdf-tools"
    assert out == (
        f'<skill name="pdf-tools" location="{skill_dir}/SKILL.md">\n'
        f"References are relative to {skill_dir}.\n\n# PDF\nUse scripts/x.py\n</skill>\n\nfill the form"
    )
    assert expand_skill_command("/skill:nope", res.skills) is None


def test_context_files_order(tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "AGENTS.md").write_text("global")
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "CLAUDE.md").write_text("outer")
    (tmp_path / "a" / "b").mkdir()
    (tmp_path / "a" / "b" / "AGENTS.md").write_text("inner")
    (tmp_path / "a" / "b" / "CLAUDE.md").write_text("ignored: AGENTS.md wins")
    files = load_context_files(tmp_path / "a" / "b", agent)
    assert [f.content for f in files] == ["global", "outer", "inner"]


def test_system_prompt_golden(tmp_path):
    from pi_app.session.resources.context_files import ContextFile
    from pi_app.session.resources.skills import Skill

    opts = SystemPromptOptions(
        cwd="/work/project",
        selected_tools=["read", "bash", "edit", "write", "grep"],
        context_files=[ContextFile("/work/project/AGENTS.md", "Use tabs.")],
        skills=[
            Skill(
                "pdf-tools", "Work with PDF files", "/skills/pdf-tools/SKILL.md", "/skills/pdf-tools", "user"
            )
        ],
        today=date(2026, 11, 29),
        append_system_prompt="Always run the tests.",
    )
    text = build_system_prompt(opts)
    assert text == GOLDEN.read_text()


def test_system_prompt_custom_and_no_tools():
    opts = SystemPromptOptions(
        cwd="/x", custom_prompt="You are terse.", selected_tools=[], today=date(2026, 1, 2)
    )
    assert (
        build_system_prompt(opts) == "You are terse.\nCurrent date: 2026-01-02\nCurrent working directory: /x"
    )
    opts = SystemPromptOptions(cwd="/x", selected_tools=[], today=date(2026, 1, 2))
    assert "Available tools:\n(none)" in build_system_prompt(opts)


def test_skill_block_scalar_description_reaches_the_prompt_without_the_bar(tmp_path):
    root = tmp_path / "skills" / "multi"
    root.mkdir(parents=True)
    (root / "SKILL.md").write_text("---\nname: multi\ndescription: |\n  Line one\n  Line two\n---\nBody\n")
    res = load_skills(str(tmp_path), str(tmp_path), [str(tmp_path / "skills")], include_defaults=False)
    assert [s.description for s in res.skills] == ["Line one\nLine two"]
    block = format_skills_for_prompt(res.skills)
    assert "<description>Line one\nLine two</description>" in block and "|" not in block


def test_skill_with_invalid_yaml_is_not_loaded_and_warns_with_position(tmp_path):
    root = tmp_path / "skills" / "bad"
    root.mkdir(parents=True)
    (root / "SKILL.md").write_text('---\nname: bad\ndescription: "unterminated\n---\nbody\n')
    res = load_skills(str(tmp_path), str(tmp_path), [str(tmp_path / "skills")], include_defaults=False)
    assert res.skills == []
    assert len(res.warnings) == 1
    assert res.warnings[0].startswith(f"{root / 'SKILL.md'}: skill not loaded: frontmatter invalid YAML")
    assert "line 3, column" in res.warnings[0]


def test_skill_directory_with_its_own_skill_md_and_nested_ones_loads_once(tmp_path):
    top = tmp_path / "top"
    (top / "sub").mkdir(parents=True)
    (top / "SKILL.md").write_text("---\nname: top\ndescription: the top skill\n---\nbody")
    (top / "notes.md").write_text("---\nname: notes\ndescription: a note, not a skill\n---\n")
    (top / "sub" / "SKILL.md").write_text("---\nname: sub\ndescription: part of top\n---\nbody")
    for extra in ([str(top)], [str(top), str(top / "SKILL.md")]):
        res = load_skills(str(tmp_path), str(tmp_path), extra, include_defaults=False)
        assert [s.name for s in res.skills] == ["top"], res.skills
        assert res.warnings == []


def test_missing_skill_path_warns(tmp_path):
    missing = tmp_path / "nope"
    res = load_skills(str(tmp_path), str(tmp_path), [str(missing)], include_defaults=False)
    assert res.skills == []
    assert res.warnings == [f"{missing}: skill path does not exist"]


def test_template_body_is_trimmed_and_invalid_yaml_warns(tmp_path):
    d = tmp_path / "prompts"
    d.mkdir()
    (d / "t.md").write_text("---\ndescription: Test\n---\n\nHello $1\n")
    (d / "bad.md").write_text("---\ndescription: [a, b\n---\nx")
    (d / "multi.md").write_text("---\ndescription: >\n  Folded\n  text\n---\nBody")
    res = load_prompt_templates(str(tmp_path), str(tmp_path), [str(d)], include_defaults=False)
    by = {t.name: t for t in res.templates}
    assert sorted(by) == ["multi", "t"]
    assert by["t"].content == "Hello $1"
    assert expand_prompt_template("/t world", res.templates) == "Hello world"
    assert expand_prompt_template('/t "" world', res.templates) == "Hello world"
    assert by["multi"].description == "Folded text"
    assert len(res.warnings) == 1 and f"{d / 'bad.md'}: prompt template not loaded" in res.warnings[0]
    assert "line 2, column" in res.warnings[0]
