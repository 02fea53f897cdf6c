"""Textual widgets for pi's interactive UI (chat log, messages, tool boxes, editor, footer)."""
