"""Resources the session loads from disk: context files, skills, prompt templates, the system prompt."""
