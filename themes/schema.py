"""The JSON shape of a pi theme file (pydantic: imported only when a user's theme file is read)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ThemeFile(BaseModel):
    """The JSON shape of a pi theme file. Colour values are checked one by one afterwards, so a single
    bad value costs only that token, not the file."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    schema_: str | None = Field(default=None, alias="$schema")
    name: str
    vars: dict[str, Any] = Field(default_factory=dict)
    colors: dict[str, Any] = Field(default_factory=dict)
    export: dict[str, Any] | None = None
