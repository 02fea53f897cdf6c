"""Model and thinking-level switching of :class:`AgentSession` (set, cycle, clamp, persist, events)."""

from __future__ import annotations

from typing import Any, Literal

from pi_app.ai.models import available_thinking_levels, clamp_thinking_level
from pi_app.ai.types import Model, models_are_equal
from pi_app.session.config import ScopedModel
from pi_app.session.session_events import ModelSelectEvent, ThinkingLevelChangedEvent


class ModelSwitchingMixin:
    """Mixed into AgentSession; uses its agent, settings, session manager and _emit/_schedule."""

    async def _emit_model_select(self, model: Model, previous: Model | None, source: Any) -> None:
        if not models_are_equal(model, previous):
            await self._emit(ModelSelectEvent(model, previous, source))

    async def set_model(self, model: Model) -> None:
        """Switch model (recorded in the session and as the default). Raises if it has no API key."""
        if not await self.model_registry.get_api_key(model):
            raise RuntimeError(f"No API key for {model.provider}/{model.id}")
        await self._switch_model(model, None, "set")

    async def _switch_model(self, model: Model, explicit_level: str | None, source: str) -> None:
        previous = self.model
        # As pi: the level carries over from a model that thinks; leaving one that does not (its level is
        # a forced "off"), the saved default applies.
        keep = previous is not None and previous.reasoning
        level = explicit_level or (self.thinking_level if keep else self.settings.default_thinking_level)
        self.agent.set_model(model)
        self.session_manager.append_model_change(model.provider, model.id)
        self.settings.set_default_model_and_provider(model.provider, model.id)
        self.set_thinking_level(level)
        await self._emit_model_select(model, previous, source)

    async def cycle_model(self, direction: Literal["forward", "backward"] = "forward") -> Model | None:
        """Next scoped model (``--models``) with a key, else next available model; None if only one."""
        candidates: list[ScopedModel] = []
        if self.scoped_models:
            for sm in self.scoped_models:
                if await self.model_registry.get_api_key(sm.model):
                    candidates.append(sm)
        else:
            candidates = [ScopedModel(m) for m in self.model_registry.get_available()]
        if len(candidates) <= 1:
            return None
        current = self.model
        index = next((i for i, c in enumerate(candidates) if models_are_equal(c.model, current)), 0)
        step = 1 if direction == "forward" else -1
        chosen = candidates[(index + step) % len(candidates)]
        if not self.scoped_models and not await self.model_registry.get_api_key(chosen.model):
            raise RuntimeError(f"No API key for {chosen.model.provider}/{chosen.model.id}")
        await self._switch_model(chosen.model, chosen.thinking_level, "cycle")
        return chosen.model

    def available_thinking_levels(self) -> list[str]:
        model = self.model
        return available_thinking_levels(model) if model is not None else ["off"]

    def set_thinking_level(self, level: str) -> None:
        """Set (clamped to the model); recorded in the session and as the default when it changes."""
        self._apply_thinking_level(level, persist=True)

    def _apply_thinking_level(self, level: str, persist: bool) -> None:
        model = self.model
        effective = clamp_thinking_level(model, level) if model is not None else "off"
        changing = effective != self.agent.state.thinking_level
        self.agent.set_thinking_level(effective)
        if persist and changing:
            self.session_manager.append_thinking_level_change(effective)
            if changing and ((model is not None and model.reasoning) or effective != "off"):
                self.settings.set_default_thinking_level(effective)
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
