"""Session tree browsing: the pure tree model and the /tree, branch-summary choice screens."""

from .entry_text import DisplayText, display_text, format_tool_call, full_text
from .model import FILTER_KEYS, FILTER_TAGS, FILTERS, Row, TreeModel

__all__ = [
    "FILTERS",
    "FILTER_KEYS",
    "FILTER_TAGS",
    "DisplayText",
    "Row",
    "TreeModel",
    "display_text",
    "format_tool_call",
    "full_text",
]
