"""The session's model selector: set, cycle and restore the model and thinking level (clamped, persisted
in the session file and as the default, announced as events)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pi_app.agent import Agent
from pi_app.ai.models import available_thinking_levels, clamp_thinking_level
from pi_app.ai.types import Model, models_are_equal
from pi_app.session.config import ModelRegistry, ScopedModel, SettingsManager
from pi_app.session.event_hub import Emit
from pi_app.session.session_events import ModelSelectEvent, ModelSelectSource, ThinkingLevelChangedEvent
from pi_app.session.store import SessionManager


class ModelSelector:
    """``emit`` awaits listeners; ``schedule`` emits from the synchronous thinking-level setters."""

    def __init__(
        self,
        *,
        agent: Agent,
        session_manager: SessionManager,
        settings: SettingsManager,
        model_registry: ModelRegistry,
        scoped_models: list[ScopedModel],
        emit: Emit,
        schedule: Callable[[ThinkingLevelChangedEvent], None],
    ) -> None:
        self._agent = agent
        self._sm = session_manager
        self._settings = settings
        self._registry = model_registry
        self.scoped_models = scoped_models
        self._emit = emit
        self._schedule = schedule

    @property
    def model(self) -> Model | None:
        return self._agent.state.model

    @property
    def thinking_level(self) -> str:
        return self._agent.state.thinking_level

    async def _announce(self, model: Model, previous: Model | None, source: ModelSelectSource) -> None:
        if not models_are_equal(model, previous):
            await self._emit(ModelSelectEvent(model, previous, source))

    async def set_model(self, model: Model) -> None:
        """Switch model (recorded in the session and as the default). Raises if it has no API key."""
        if not await self._registry.get_api_key(model):
            raise RuntimeError(f"No API key for {model.provider}/{model.id}")
        await self._switch(model, None, "set")

    async def _switch(self, model: Model, explicit_level: str | None, source: ModelSelectSource) -> None:
        previous = self.model
        # As pi: the level carries over from a model that thinks; leaving one that does not (its level is
        # a forced "off"), the saved default applies.
        keep = previous is not None and previous.reasoning
        # pi 1.6's modelThinkingLevels: the model's own startup level, which is not saved as the default
        per_model = None if explicit_level else self._settings.model_thinking_level(model.provider, model.id)
        level = (
            explicit_level
            or per_model
            or (self.thinking_level if keep else self._settings.default_thinking_level)
        )
        self._agent.set_model(model)
        self._sm.append_model_change(model.provider, model.id)
        self._settings.set_default_model_and_provider(model.provider, model.id)
        self._apply_thinking_level(level, persist=True, save_default=per_model is None)
        await self._announce(model, previous, source)

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> Model | None:
        """Next scoped model (``--models``) with a key, else next available model; None if only one."""
        candidates: list[ScopedModel] = []
        if self.scoped_models:
            for scoped in self.scoped_models:
                if await self._registry.get_api_key(scoped.model):
                    candidates.append(scoped)
        else:
            candidates = [ScopedModel(m) for m in self._registry.get_available()]
        if len(candidates) <= 1:
            return None
        current = self.model
        index = next((i for i, c in enumerate(candidates) if models_are_equal(c.model, current)), 0)
        step = 1 if direction == "forward" else -1
        chosen = candidates[(index + step) % len(candidates)]
        if not self.scoped_models and not await self._registry.get_api_key(chosen.model):
            raise RuntimeError(f"No API key for {chosen.model.provider}/{chosen.model.id}")
        await self._switch(chosen.model, chosen.thinking_level, "cycle")
        return chosen.model

    async def restore_from_session(self) -> None:
        """After opening another session file: its model (if it has a key) and thinking level."""
        ctx = self._sm.build_session_context()
        if ctx.model is not None:
            previous = self.model
            match = self._registry.find(ctx.model.provider, ctx.model.model_id)
            if match is not None and await self._registry.get_api_key(match):
                self._agent.set_model(match)
                await self._announce(match, previous, "restore")
        has_level = any(e.get("type") == "thinking_level_change" for e in self._sm.get_branch())
        if has_level:
            # As pi: restored through the setter, so a level that differs from the current one is appended
            # to the resumed session and saved as the default; the same level writes nothing.
            self._apply_thinking_level(ctx.thinking_level, persist=True)
        else:
            # pi appends the (clamped) default but leaves the setting itself alone.
            self._apply_thinking_level(self._settings.default_thinking_level, persist=False)
            self._sm.append_thinking_level_change(self.thinking_level)

    def available_thinking_levels(self) -> list[str]:
        model = self.model
        return available_thinking_levels(model) if model is not None else ["off"]

    def set_thinking_level(self, level: str) -> None:
        """Set (clamped to the model); recorded in the session and as the default when it changes."""
        self._apply_thinking_level(level, persist=True)

    def _apply_thinking_level(self, level: str, persist: bool, save_default: bool = True) -> None:
        model = self.model
        effective = clamp_thinking_level(model, level) if model is not None else "off"
        changing = effective != self._agent.state.thinking_level
        self._agent.set_thinking_level(effective)
        if persist and changing:
            self._sm.append_thinking_level_change(effective)
            if save_default and ((model is not None and model.reasoning) or effective != "off"):
                self._settings.set_default_thinking_level(effective)
        if changing:
            self._schedule(ThinkingLevelChangedEvent(effective))

    def cycle_thinking_level(self) -> str | None:
        """Next level the model offers; None if it does not reason."""
        model = self.model
        if model is None or not model.reasoning:
            return None
        levels = self.available_thinking_levels()
        current = self.thinking_level
        nxt = levels[(levels.index(current) + 1) % len(levels)] if current in levels else levels[0]
        self.set_thinking_level(nxt)
        return nxt
