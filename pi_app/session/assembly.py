"""Building an AgentSession (pi's ``createAgentSession``): settings, auth, models, resources, tools, store.

Every mode (TUI, print, json, rpc) starts here, so the product behaves the same whichever front end runs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pi_app.agent import Agent, AgentState, AgentTool
from pi_app.ai.models import clamp_thinking_level
from pi_app.ai.types import ImageContent, Model, TextContent
from pi_app.session.config import (
    AuthStorage,
    ModelRegistry,
    ScopedModel,
    SettingsManager,
    find_initial_model,
    resolve_cli_model,
    resolve_model_scope,
    restore_model_from_session,
)
from pi_app.session.config import agent_dir as default_agent_dir
from pi_app.session.config.settings_schema import DEFAULT_THINKING_LEVEL
from pi_app.session.messages import convert_to_llm
from pi_app.session.resources.context_files import ContextFile, load_context_files
from pi_app.session.resources.skills import Skill, load_skills
from pi_app.session.resources.system_prompt import SystemPromptOptions, build_system_prompt
from pi_app.session.resources.templates import PromptTemplate, load_prompt_templates
from pi_app.session.store import SessionManager, encode_cwd
from pi_app.tools import DEFAULT_TOOL_NAMES, create_tool
from pi_app.tools.options import OutputLimits, ToolOptions

IMAGE_BLOCKED_TEXT = "Image reading is disabled."


@dataclass
class ResourceOptions:
    """What decides the loaded resources and the system prompt (kept for ``reload()``)."""

    system_prompt: str | None = None
    append_system_prompt: str | None = None
    skills_paths: list[str] = field(default_factory=list)
    no_skills: bool = False
    template_paths: list[str] = field(default_factory=list)
    no_templates: bool = False


@dataclass
class Resources:
    context_files: list[ContextFile] = field(default_factory=list)
    skills: list[Skill] = field(default_factory=list)
    prompt_templates: list[PromptTemplate] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def _text_or_file(value: str | None) -> str | None:
    """``--system-prompt`` and ``--append-system-prompt`` take text or the path of a file holding it."""
    if not value:
        return value
    try:
        path = Path(os.path.expanduser(value))
        if len(value) < 4096 and "\n" not in value and path.is_file():
            return path.read_text(encoding="utf-8")
    except OSError:
        pass
    return value


def load_resources(cwd: str, agent_dir: str, settings: SettingsManager, opts: ResourceOptions) -> Resources:
    s = settings.settings
    trusted = settings.project_trusted  # context files load regardless; project skills/templates do not
    res = Resources(context_files=load_context_files(cwd, agent_dir))
    skills = load_skills(
        cwd,
        agent_dir,
        [*s.skills, *opts.skills_paths],
        include_defaults=not opts.no_skills,
        include_project=trusted,
    )
    res.skills, res.warnings = skills.skills, list(skills.warnings)
    templates = load_prompt_templates(
        cwd,
        agent_dir,
        [*s.prompts, *opts.template_paths],
        include_defaults=not opts.no_templates,
        include_project=trusted,
    )
    res.prompt_templates = templates.templates
    res.warnings += templates.warnings
    return res


def system_prompt_for(cwd: str, tool_names: list[str], res: Resources, opts: ResourceOptions) -> str:
    return build_system_prompt(
        SystemPromptOptions(
            cwd=cwd,
            custom_prompt=_text_or_file(opts.system_prompt),
            selected_tools=tool_names,
            append_system_prompt=_text_or_file(opts.append_system_prompt),
            context_files=res.context_files,
            skills=res.skills,
        )
    )


def tool_options_from_settings(settings: SettingsManager, agent_dir: str) -> ToolOptions:
    s = settings.settings
    t = s.tools
    base = OutputLimits(max_lines=t.maxLines, max_bytes=t.maxBytes)
    per_tool = {
        name: OutputLimits(max_lines=lim.maxLines or base.max_lines, max_bytes=lim.maxBytes or base.max_bytes)
        for name, lim in t.limits.items()
    }
    return ToolOptions(
        limits=base,
        tool_limits=per_tool,
        grep_max_line_length=t.grepMaxLineLength,
        bash_timeout=t.bashTimeout,
        shell_command_prefix=s.shellCommandPrefix,
        shell_path=s.shellPath,
        auto_resize_images=s.images.autoResize,
        keep_background_processes=s.bash.keepBackgroundProcesses,
        bin_dir=os.path.join(agent_dir, "bin"),
    )


def block_images(messages: list[Any]) -> list[Any]:
    """Every image becomes the text "Image reading is disabled." (consecutive duplicates collapsed)."""
    out: list[Any] = []
    for msg in messages:
        content = getattr(msg, "content", None)
        if getattr(msg, "role", None) not in ("user", "toolResult") or not isinstance(content, list):
            out.append(msg)
            continue
        if not any(isinstance(c, ImageContent) for c in content):
            out.append(msg)
            continue
        blocks: list[Any] = []
        for c in content:
            if isinstance(c, ImageContent):
                prev = blocks[-1] if blocks else None
                if isinstance(prev, TextContent) and prev.text == IMAGE_BLOCKED_TEXT:
                    continue
                c = TextContent(text=IMAGE_BLOCKED_TEXT)
            blocks.append(c)
        out.append(msg.model_copy(update={"content": blocks}))
    return out


def make_convert_to_llm(settings: SettingsManager) -> Callable[[list[Any]], list[Any]]:
    def convert(messages: list[Any]) -> list[Any]:
        converted = convert_to_llm(messages)
        # Read per call: toggling the setting mid-session takes effect on the next request.
        return block_images(converted) if settings.settings.images.blockImages else converted

    return convert


async def create_agent_session(
    cwd: str | os.PathLike[str] | None = None,
    agent_dir: str | os.PathLike[str] | None = None,
    *,
    model: Model | str | None = None,
    provider: str | None = None,
    thinking_level: str | None = None,
    tools: Sequence[str] | None = None,
    no_tools: bool = False,
    custom_tools: Sequence[AgentTool] = (),
    system_prompt: str | None = None,
    append_system_prompt: str | None = None,
    skills_paths: Sequence[str] = (),
    no_skills: bool = False,
    template_paths: Sequence[str] = (),
    no_templates: bool = False,
    session: SessionManager | None = None,
    api_key: str | None = None,
    scoped_models: Sequence[str | ScopedModel] = (),
    settings: SettingsManager | None = None,
    auth: AuthStorage | None = None,
    model_registry: ModelRegistry | None = None,
    stream_fn: Callable[..., Any] | None = None,
) -> Any:
    """Resolve everything an AgentSession needs and build it. Raises ValueError for an unknown model/tool.

    ``model`` is a Model or a ``--model`` pattern (with ``provider`` as ``--provider``); ``scoped_models`` are
    ``--models`` patterns or resolved ScopedModels. The result's ``model_fallback_message`` (also on
    ``session.model_fallback_message``) explains a model that could not be restored.
    """
    from pi_app.session.agent_session import AgentSession

    cwd_s = str(Path(cwd).resolve()) if cwd is not None else os.getcwd()
    adir = str(agent_dir) if agent_dir is not None else str(default_agent_dir())
    settings = settings or SettingsManager.create(cwd_s, adir)
    if auth is None:
        auth = AuthStorage.create(Path(adir) / "auth.json")
    registry = model_registry or ModelRegistry(auth, Path(adir) / "models.json")
    if session is None:
        configured = settings.settings.sessionDir
        if configured:
            session_dir = Path(os.path.expanduser(configured))
        elif agent_dir is not None:
            session_dir = Path(adir) / "sessions" / encode_cwd(cwd_s)
        else:
            session_dir = None  # the store's default under $PI_CODING_AGENT_DIR
        session = SessionManager.create(cwd_s, session_dir)
    manager = session
    warnings = settings.drain_warnings() + auth.drain_warnings()
    if registry.error:
        warnings.append(registry.error)

    # ---- model
    scoped: list[ScopedModel] = []
    patterns = [p for p in scoped_models if isinstance(p, str)]
    scoped += [p for p in scoped_models if isinstance(p, ScopedModel)]
    if patterns:
        found, scope_warnings = resolve_model_scope(patterns, registry.get_available() or registry.get_all())
        scoped += found
        warnings += scope_warnings
    explicit_level: str | None = None
    chosen: Model | None = None
    if isinstance(model, Model):
        chosen = model
    elif isinstance(model, str) and model:
        resolved = resolve_cli_model(registry, model, provider)
        if resolved.error or resolved.model is None:
            raise ValueError(resolved.error or f'Model "{model}" not found.')
        chosen, explicit_level = resolved.model, resolved.thinking_level
        if resolved.warning:
            warnings.append(resolved.warning)
    if api_key:
        target = chosen.provider if chosen is not None else provider
        if not target:
            raise ValueError("--api-key requires a model to be specified via --model or --provider")
        auth.set_runtime_api_key(target, api_key)

    existing = manager.build_session_context()
    has_existing = bool(existing.sources)  # not raw_messages: that would parse every line again
    has_thinking_entry = any(e.get("type") == "thinking_level_change" for e in manager.get_branch())
    fallback_message: str | None = None
    if chosen is None and has_existing and existing.model is not None:
        chosen, fallback_message = await restore_model_from_session(
            registry, existing.model.provider, existing.model.model_id, None
        )
    if chosen is None:
        initial = find_initial_model(
            registry,
            scoped_models=scoped,
            is_continuing=has_existing,
            default_provider=settings.settings.defaultProvider,
            default_model_id=settings.settings.defaultModel,
            default_thinking_level=settings.settings.defaultThinkingLevel,
        )
        chosen = initial.model
        if chosen is None:
            fallback_message = fallback_message or initial.error
        elif scoped and not has_existing:
            explicit_level = explicit_level or scoped[0].thinking_level

    # ---- thinking level
    level = thinking_level or explicit_level
    if level is None and has_existing and has_thinking_entry:
        level = existing.thinking_level
    if level is None:
        level = settings.settings.defaultThinkingLevel or DEFAULT_THINKING_LEVEL
    level = clamp_thinking_level(chosen, level) if chosen is not None else "off"

    # ---- resources, tools, prompt
    ropts = ResourceOptions(
        system_prompt=system_prompt,
        append_system_prompt=append_system_prompt,
        skills_paths=list(skills_paths),
        no_skills=no_skills,
        template_paths=list(template_paths),
        no_templates=no_templates,
    )
    resources = load_resources(cwd_s, adir, settings, ropts)
    tool_opts = tool_options_from_settings(settings, adir)
    names = [] if no_tools else list(tools if tools is not None else DEFAULT_TOOL_NAMES)
    agent_tools: list[AgentTool] = [create_tool(n, cwd_s, tool_opts) for n in names]
    agent_tools += list(custom_tools)
    tool_names = [t.name for t in agent_tools]
    prompt_text = system_prompt_for(cwd_s, tool_names, resources, ropts)

    s = settings.settings

    async def get_api_key(provider_name: str) -> str:
        key = await auth.get_api_key(provider_name)
        if not key:
            raise RuntimeError(
                f'No API key found for "{provider_name}". '
                f"Set an API key environment variable or run '/login {provider_name}'."
            )
        return key

    agent = Agent(
        initial_state=AgentState(
            system_prompt=prompt_text, model=chosen, thinking_level=level, tools=agent_tools
        ),
        convert_to_llm=make_convert_to_llm(settings),
        steering_mode=s.steeringMode,
        follow_up_mode=s.followUpMode,
        stream_fn=stream_fn,
        session_id=manager.session_id,
        get_api_key=get_api_key,
        thinking_budgets=settings.thinking_budgets() or None,
        max_retry_delay_ms=s.retry.maxDelayMs,
        idle_timeout_s=s.httpIdleTimeoutMs / 1000 if s.httpIdleTimeoutMs else None,
    )
    if has_existing:
        agent.replace_messages(existing.messages)
        if not has_thinking_entry:
            manager.append_thinking_level_change(level)
    else:
        if chosen is not None:
            manager.append_model_change(chosen.provider, chosen.id)
        manager.append_thinking_level_change(level)

    sess = AgentSession(
        agent=agent,
        session_manager=manager,
        settings=settings,
        model_registry=registry,
        cwd=cwd_s,
        agent_dir=adir,
        resources=resources,
        resource_options=ropts,
        tool_options=tool_opts,
        scoped_models=scoped,
        stream_fn=stream_fn,
    )
    sess.model_fallback_message = fallback_message
    sess.resource_warnings.extend(warnings + manager.warnings)
    return sess
