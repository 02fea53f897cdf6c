"""Regenerate ``pi_app/ai/data/models.json`` from pi's ``@earendil-works/pi-ai`` npm package (dev only).

    python scripts/update_catalogue.py PATH_TO_PI_AI_PACKAGE [--coding-agent PATH] [--out PATH]

The package ships its catalogue as JSON facts (``dist/providers/data/<provider>.json``: api -> "type:id" ->
model). This script keeps the chat models of every provider we can serve (wire APIs we implement, a fixed
base URL), turns pi's ``mistral-conversations`` models into requests to Mistral's OpenAI-compatible
endpoint, and records pi's default model per provider, read from the sibling ``@earendil-works/pi-coding-agent``
package (``dist/core/model-resolver.js``, an object literal of string pairs). Nothing here runs at runtime:
the generated JSON file is what ships.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "pi_app" / "ai" / "data" / "models.json"

# Wire APIs pi_app.ai.providers implements.
SUPPORTED_APIS = frozenset(
    {"anthropic-messages", "openai-completions", "openai-responses", "google-generative-ai"}
)

# Providers whose models need a sign-in flow this project does not implement (Copilot exchanges a GitHub
# token for a session token and sends editor headers).
UNSERVED_PROVIDERS = frozenset({"github-copilot"})

# Fields of pi's chat model that describe it (pi's "type" is always "chat" here; radius-only fields and
# prompt-cache lifetimes are not used by this project).
KEPT_FIELDS = (
    "id",
    "name",
    "api",
    "provider",
    "baseUrl",
    "reasoning",
    "thinkingLevelMap",
    "input",
    "inputLimits",
    "cost",
    "contextWindow",
    "maxTokens",
    "headers",
    "compat",
)

# pi talks to Mistral through its own SDK ("mistral-conversations"); we use the chat-completions endpoint,
# which needs these request differences.
MISTRAL_BASE_URL = "https://api.mistral.ai/v1"
MISTRAL_COMPAT: dict[str, Any] = {
    "supportsStore": False,
    "supportsDeveloperRole": False,
    "maxTokensField": "max_tokens",
    "requiresToolResultName": True,
    "requiresThinkingAsText": True,
    "requiresMistralToolIds": True,
}

_DEFAULTS_RE = re.compile(r"defaultModelPerProvider\s*=\s*\{(?P<body>.*?)\n\};", re.S)
_PAIR_RE = re.compile(r'^\s*(?:"(?P<qkey>[^"]+)"|(?P<key>[A-Za-z_$][\w$]*))\s*:\s*"(?P<value>[^"]*)",?\s*$')


class CatalogueError(Exception):
    pass


def _is_servable(model: dict[str, Any]) -> bool:
    if model.get("type", "chat") != "chat" or model["provider"] in UNSERVED_PROVIDERS:
        return False
    if model["api"] == "mistral-conversations":
        return True
    base_url = model.get("baseUrl") or ""
    # Templated (account ids) or empty (Azure deployment) base URLs need configuration we do not have.
    return model["api"] in SUPPORTED_APIS and bool(base_url) and "{" not in base_url


def _convert(model: dict[str, Any]) -> dict[str, Any]:
    out = {key: model[key] for key in KEPT_FIELDS if key in model}
    if model["api"] == "mistral-conversations":
        out["api"] = "openai-completions"
        out["baseUrl"] = MISTRAL_BASE_URL
        out["compat"] = {**MISTRAL_COMPAT, **(model.get("compat") or {})}
    return out


def read_provider_models(pi_ai: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """provider -> id -> pi's chat model (every API), in pi's order; a later duplicate id replaces the earlier
    value but keeps its place, as pi's catalogue flattening does."""
    data_dir = pi_ai / "dist" / "providers" / "data"
    if not data_dir.is_dir():
        raise CatalogueError(f"{data_dir}: not found (is {pi_ai} the @earendil-works/pi-ai package?)")
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(data_dir.glob("*.json")):
        if path.name.startswith("."):  # .manifest.json describes the generation run
            continue
        try:
            groups = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CatalogueError(f"{path}:{exc.lineno}: {exc.msg}") from exc
        for api, models in groups.items():
            for key, model in models.items():
                if model.get("type") != "chat":
                    continue
                for field in ("id", "api", "provider"):
                    if not isinstance(model.get(field), str):
                        raise CatalogueError(f"{path}: {api} / {key}: missing {field!r}")
                out.setdefault(model["provider"], {})[model["id"]] = model
    return out


def read_default_models(coding_agent: Path) -> dict[str, str]:
    """pi's ``defaultModelPerProvider`` (provider -> model id) in its preference order."""
    path = coding_agent / "dist" / "core" / "model-resolver.js"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogueError(f"{path}: {exc.strerror}") from exc
    match = _DEFAULTS_RE.search(text)
    if match is None:
        raise CatalogueError(f"{path}: defaultModelPerProvider not found")
    defaults: dict[str, str] = {}
    for line in match.group("body").splitlines():
        if not line.strip():
            continue
        pair = _PAIR_RE.match(line)
        if pair is None:
            raise CatalogueError(f"{path}: cannot read default model line {line.strip()!r}")
        defaults[pair.group("qkey") or pair.group("key")] = pair.group("value")
    return defaults


def build_catalogue(pi_ai: Path, coding_agent: Path) -> dict[str, Any]:
    package = pi_ai / "package.json"
    try:
        version = json.loads(package.read_text(encoding="utf-8"))["version"]
    except (OSError, ValueError, KeyError) as exc:
        raise CatalogueError(
            f"{package}: not found or has no version (is {pi_ai} the pi-ai package?)"
        ) from exc
    by_provider = read_provider_models(pi_ai)
    defaults = read_default_models(coding_agent)
    providers: dict[str, Any] = {}
    skipped: dict[str, int] = {}
    for provider in sorted(by_provider):
        models = [_convert(m) for m in by_provider[provider].values() if _is_servable(m)]
        dropped = len(by_provider[provider]) - len(models)
        if dropped:
            skipped[provider] = dropped
        if models:
            providers[provider] = {"models": models}
    return {
        "_comment": (
            f"Built-in model catalogue: facts from pi's @earendil-works/pi-ai {version}, generated by "
            "scripts/update_catalogue.py (do not edit by hand). Prices are $ per million tokens."
        ),
        "source": {"package": "@earendil-works/pi-ai", "version": version},
        # pi's first-run pick per provider, in preference order (includes providers we do not ship).
        "defaultModels": defaults,
        "skippedModels": skipped,
        "providers": providers,
    }


def render(catalogue: dict[str, Any]) -> str:
    """Indented JSON with one model per line (reviewable diffs, small file)."""
    head = {k: v for k, v in catalogue.items() if k != "providers"}
    lines = ["{"]
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines.append('  "providers": {')
    provider_items = list(catalogue["providers"].items())
    for p_index, (provider, entry) in enumerate(provider_items):
        lines.append(f"    {json.dumps(provider)}: {{")
        lines.append('      "models": [')
        models = entry["models"]
        for m_index, model in enumerate(models):
            comma = "," if m_index < len(models) - 1 else ""
            lines.append(f"        {json.dumps(model, ensure_ascii=False, separators=(', ', ': '))}{comma}")
        lines.append("      ]")
        lines.append("    }" + ("," if p_index < len(provider_items) - 1 else ""))
    lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pi_ai", type=Path, help="path to the @earendil-works/pi-ai package")
    parser.add_argument(
        "--coding-agent",
        type=Path,
        help="path to @earendil-works/pi-coding-agent (default: the pi-ai package's sibling)",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    coding_agent = args.coding_agent or args.pi_ai.parent / "pi-coding-agent"
    try:
        catalogue = build_catalogue(args.pi_ai, coding_agent)
    except CatalogueError as exc:
        print(f"update_catalogue: {exc}", file=sys.stderr)
        return 1
    args.out.write_text(render(catalogue), encoding="utf-8")
    total = sum(len(p["models"]) for p in catalogue["providers"].values())
    print(
        f"{args.out}: {len(catalogue['providers'])} providers, {total} models (pi-ai {catalogue['source']['version']})"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
