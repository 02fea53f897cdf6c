"""Building an AgentSession (pi's ``createAgentSession``): settings, auth, models, resources, tools, store.

Every mode (TUI, print, json, rpc) starts here, so the product behaves the same whichever front end runs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pi_app.agent import Agent, AgentState, AgentTool
from pi_app.ai.models import clamp_thinking_level
from pi_app.ai.transcript import recorded_tool_names
from pi_app.ai.types import Model
from pi_app.session.agent_session import AgentSession
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
from pi_app.session.session_setup import (
    ResourceOptions,
    load_resources,
    make_convert_to_llm,
    system_prompt_for,
    tool_options_from_settings,
)
from pi_app.session.store import SessionManager, encode_cwd
from pi_app.tools import ALL_TOOL_NAMES, DEFAULT_TOOL_NAMES, create_tool


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
    append_system_prompt: str | Sequence[str] | None = None,
    skills_paths: Sequence[str] = (),
    no_skills: bool = False,
    template_paths: Sequence[str] = (),
    no_templates: bool = False,
    no_context_files: bool = False,
    project_resources: bool = True,
    session: SessionManager | None = None,
    api_key: str | None = None,
    scoped_models: Sequence[str | ScopedModel] = (),
    settings: SettingsManager | None = None,
    auth: AuthStorage | None = None,
    model_registry: ModelRegistry | None = None,
    stream_fn: Callable[..., Any] | None = None,
    lazy_history: bool = False,
) -> AgentSession:
    """Resolve everything an AgentSession needs and build it. Raises ValueError for an unknown model/tool.

    ``project_resources`` says whether protected project resources (``.pi/SYSTEM.md``,
    ``.pi/APPEND_SYSTEM.md``) may load, i.e. whether the project is trusted.
    ``model`` is a Model or a ``--model`` pattern (with ``provider`` as ``--provider``); ``scoped_models`` are
    ``--models`` patterns or resolved ScopedModels. The result's ``model_fallback_message`` (also on
    ``session.model_fallback_message``) explains a model that could not be restored.
    ``lazy_history``: a resumed history is typed as it is read (the TUI draws the chat's tail first, then
    calls ``session.type_history()``); by default it is typed here, so unusable messages are reported in
    the session's warnings.
    """

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
    has_thinking_entry = existing.thinking_entry  # (found by the same walk up the branch)
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
    if level is None and not has_existing and chosen is not None:  # as pi: not on resume
        level = settings.model_thinking_level(chosen.provider, chosen.id)
    if level is None:
        level = settings.settings.defaultThinkingLevel or DEFAULT_THINKING_LEVEL
    level = clamp_thinking_level(chosen, level) if chosen is not None else "off"

    # ---- resources, tools, prompt
    ropts = ResourceOptions(
        system_prompt=system_prompt,
        append_system_prompt=(
            append_system_prompt
            if append_system_prompt is None or isinstance(append_system_prompt, str)
            else list(append_system_prompt)
        ),
        skills_paths=list(skills_paths),
        no_skills=no_skills,
        template_paths=list(template_paths),
        no_templates=no_templates,
        no_context_files=no_context_files,
        allow_project=project_resources,
    )
    resources = load_resources(cwd_s, adir, settings, ropts)
    tool_opts = tool_options_from_settings(settings, adir)
    names = [] if no_tools else list(tools if tools is not None else DEFAULT_TOOL_NAMES)
    if tools is None and not no_tools and has_existing:
        # Resuming without --tools keeps the tool set the session recorded (pi 1.6); unknown names are skipped.
        # only the system messages (the tool-set log) are typed for this: the rest waits for its reader
        recorded = recorded_tool_names(existing.system_messages())
        if recorded is not None:
            names = [n for n in recorded if n in ALL_TOOL_NAMES]
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
        agent.replace_messages(existing.history if lazy_history else existing.messages)
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
