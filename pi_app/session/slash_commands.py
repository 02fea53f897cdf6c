"""The slash commands a session offers beside the built-in ones, as RPC ``get_commands`` lists them (and the
editor completes them): extension commands, then prompt templates, then skills (``skill:name``, when
``enableSkillCommands`` is on), in pi's order and shape."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pi_app.session.resources.skills import Skill
from pi_app.session.resources.templates import PromptTemplate


def slash_commands(
    extension_commands: Sequence[dict[str, Any]],
    templates: Sequence[PromptTemplate],
    skills: Sequence[Skill],
    with_skills: bool,
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = list(extension_commands)
    out += [
        {
            "name": t.name,
            "description": t.description,
            "source": "prompt",
            "location": t.source,
            "path": t.file_path,
        }
        for t in templates
    ]
    if with_skills:
        out += [
            {
                "name": f"skill:{s.name}",
                "description": s.description,
                "source": "skill",
                "location": s.source,
                "path": s.file_path,
            }
            for s in skills
        ]
    return out
