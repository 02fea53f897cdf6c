"""The app's dialogs: model selector, /settings (with the theme preview) and /login.

A mixin of :class:`pi_app.tui.app.PiApp`, kept apart so the app module stays about keys, chat and the agent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from widgets.notices import ErrorNotice

if TYPE_CHECKING:
    from pi_app.tui.app import PiApp

    _Base = PiApp
else:
    _Base = object


class DialogsMixin(_Base):
    def action_select_model(self, query: str = "") -> None:
        from pi_app.tui.screens.model_select import ModelSelectScreen

        registry = self.session.model_registry
        models = registry.get_available() or registry.get_all()
        if not models:
            self.run_worker(self.show_status("No models available"))
            return
        self.push_screen(ModelSelectScreen(models, self.session.model, query), self._model_chosen)

    def _model_chosen(self, model: Any) -> None:
        if model is not None:
            self.run_worker(self._set_model(model), group="model", exit_on_error=False)

    async def _set_model(self, model: Any) -> None:
        try:
            await self.session.set_model(model)
        except Exception as exc:
            await self.chat.add(ErrorNotice(str(exc)))
            return
        self.on_model_changed()
        self.refresh_footer()
        await self.show_status(f"Model: {model.id}")

    def open_settings(self) -> None:
        from pi_app.tui.screens.settings import SettingsScreen

        session = self.session
        self.push_screen(
            SettingsScreen(
                session.settings,
                self.apply_setting,
                lambda: self.theme,
                thinking=lambda: (session.thinking_level or "off", list(session.available_thinking_levels())),
            )
        )

    def apply_setting(self, key: str, value: Any) -> None:
        session = self.session
        if key == "steeringMode":
            session.set_steering_mode(value)
        elif key == "followUpMode":
            session.set_follow_up_mode(value)
        elif key == "thinking":
            session.set_thinking_level(value)
            self.editor.thinking_level = session.thinking_level or "off"
        elif key == "compaction.enabled":
            session.set_auto_compaction_enabled(bool(value))
        elif key == "retry.enabled":
            session.set_auto_retry_enabled(bool(value))
        else:
            session.settings.set(key, value)
        if key == "hideThinkingBlock":
            self.chat.set_hide_thinking(bool(value))
        self.apply_editor_settings()
        self.refresh_footer()

    def apply_editor_settings(self) -> None:
        """editorPaddingX and autocompleteMaxVisible take effect at once."""
        s = self.session.settings.settings
        self.editor.styles.padding = (0, 1 + max(0, int(s.editorPaddingX or 0)))
        self.menu.styles.max_height = max(3, int(s.autocompleteMaxVisible or 5))

    def preview_theme(self, name: str) -> None:
        if name in self.available_themes:
            self.theme = name

    def save_theme(self, name: str) -> None:
        self.preview_theme(name)
        self.session.settings.set_theme(name)

    def open_login(self, provider: str) -> None:
        from pi_app.tui.screens.login import LoginScreen

        providers = sorted({m.provider for m in self.session.model_registry.get_all()})
        self.push_screen(LoginScreen(provider, providers), self._login_done)

    def _login_done(self, result: tuple[str, str] | None) -> None:
        if result is not None:
            self.run_worker(self._store_key(*result), exit_on_error=False)

    async def _store_key(self, provider: str, key: str) -> None:
        registry = self.session.model_registry
        registry.auth.set_api_key(provider, key)
        registry.refresh()
        await self.show_status(f"Saved API key for {provider} to auth.json")
        if self.session.model is None:
            candidates = [m for m in registry.get_available() if m.provider == provider]
            if candidates:
                await self._set_model(candidates[0])
        self.refresh_footer()
