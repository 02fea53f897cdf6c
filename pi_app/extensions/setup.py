"""Building the extension runtime for a run: discovery (trust-gated) and loading."""

from __future__ import annotations

from pathlib import Path

from pi_app.extensions.loader import discover
from pi_app.extensions.runner import ExtensionRunner
from pi_app.session.config import ModelRegistry, SettingsManager


def setting_paths(settings: SettingsManager, agent_dir: str, cwd: str) -> list[tuple[str, str]]:
    """The ``extensions`` setting's paths with the directory each is relative to (its settings file's)."""
    out: list[tuple[str, str]] = []
    for scope, base in (
        (settings.global_settings(), agent_dir),
        (settings.project_settings(), str(Path(cwd) / ".pi")),
    ):
        for path in scope.get("extensions") or ():
            if isinstance(path, str) and not path.startswith(("builtin:", "+builtin:", "-builtin:")):
                out.append((path, base))
    return out


def builtin_names(settings: SettingsManager, disabled: list[str]) -> list[str]:
    """The built-ins to load by default: the ``extensions`` setting (global, then project) may turn one
    off with ``-builtin:<name>``; ``disabled`` comes from flags such as ``--no-mcp``."""
    from pi_app.extensions.builtin import enabled_builtins

    entries = [
        e
        for scope in (settings.global_settings(), settings.project_settings())
        for e in scope.get("extensions") or ()
        if isinstance(e, str)
    ]
    return enabled_builtins(entries, disabled)


async def load_extensions(
    *,
    cwd: str,
    agent_dir: str,
    settings: SettingsManager,
    model_registry: ModelRegistry,
    project_trusted: bool,
    cli_paths: list[str],
    no_extensions: bool,
) -> tuple[ExtensionRunner, list[str]]:
    """(the runner with every extension loaded, warnings about paths that are not extensions).

    Project extensions (``.pi/extensions``, project ``extensions`` setting) are not even imported until
    the folder is trusted."""
    paths = setting_paths(settings, agent_dir, cwd)
    if not project_trusted:
        paths = [(p, base) for p, base in paths if base == agent_dir]
    sources, warnings = discover(
        agent_dir=agent_dir,
        cwd=cwd,
        project_trusted=project_trusted,
        setting_paths=paths,
        cli_paths=cli_paths,
        no_extensions=no_extensions,
    )
    runner = ExtensionRunner(
        cwd=cwd, settings=settings, model_registry=model_registry, project_trusted=project_trusted
    )
    if sources:
        await runner.load(sources)
    return runner, warnings
