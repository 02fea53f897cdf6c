"""Provider adapters, one module per wire API; imported lazily through ``pi_app.ai.stream``."""
