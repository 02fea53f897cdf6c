"""Modal screens: model selector, settings, theme picker, login."""
