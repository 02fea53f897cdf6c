"""Configuration: paths, settings.json, auth.json, models.json, the model registry and model selection."""

from pi_app.session.config.auth import AuthStorage, OAuthRefresher
from pi_app.session.config.paths import (
    agent_dir,
    auth_path,
    models_path,
    project_config_dir,
    project_settings_path,
    settings_path,
)
from pi_app.session.config.registry import ModelRegistry, ProviderRegistration, create_registry
from pi_app.session.config.resolver import (
    CliModelResult,
    InitialModel,
    ParsedModel,
    ScopedModel,
    find_initial_model,
    parse_model_pattern,
    resolve_cli_model,
    resolve_model_scope,
    restore_model_from_session,
)
from pi_app.session.config.settings import SettingsManager
from pi_app.session.config.settings_schema import DEFAULT_THINKING_LEVEL, Settings
from pi_app.session.config.values import clear_config_value_cache, resolve_config_value, resolve_headers

__all__ = [
    "DEFAULT_THINKING_LEVEL",
    "AuthStorage",
    "CliModelResult",
    "InitialModel",
    "ModelRegistry",
    "OAuthRefresher",
    "ParsedModel",
    "ProviderRegistration",
    "ScopedModel",
    "Settings",
    "SettingsManager",
    "agent_dir",
    "auth_path",
    "clear_config_value_cache",
    "create_registry",
    "find_initial_model",
    "models_path",
    "parse_model_pattern",
    "project_config_dir",
    "project_settings_path",
    "resolve_cli_model",
    "resolve_config_value",
    "resolve_headers",
    "resolve_model_scope",
    "restore_model_from_session",
    "settings_path",
]
