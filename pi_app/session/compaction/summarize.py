"""The summarising model requests for compaction and branch summaries."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from pi_app.ai.abort import AbortSignal
from pi_app.ai.options import StreamOptions
from pi_app.ai.stream import StreamFn, stream
from pi_app.ai.text import text_of
from pi_app.ai.types import Context, Model, TextContent, UserMessage
from pi_app.session.compaction import prompts
from pi_app.session.compaction.cut_point import CompactionPreparation, prepare_branch_entries
from pi_app.session.compaction.file_ops import format_file_operations
from pi_app.session.compaction.serialize import serialize_conversation
from pi_app.session.messages import convert_to_llm


class SummarizationError(Exception):
    pass


class SummarizationAborted(Exception):
    pass


@dataclass
class CompactionResult:
    """A compaction's summary, the first entry it keeps, the context size before it, and the files touched."""

    summary: str
    first_kept_entry_id: str
    tokens_before: int
    details: dict[str, Any] = field(default_factory=dict)


async def _request(
    model: Model,
    prompt: str,
    max_tokens: int,
    api_key: str | None,
    signal: AbortSignal | None,
    reasoning: str | None = None,
    stream_fn: StreamFn | None = None,
) -> str:
    ctx = Context(
        systemPrompt=prompts.SUMMARIZER_SYSTEM_PROMPT,
        messages=[UserMessage(content=[TextContent(text=prompt)])],
    )
    opts = StreamOptions(max_tokens=max_tokens, api_key=api_key, signal=signal, reasoning=reasoning)
    msg = await (stream_fn or stream)(model, ctx, opts).result()
    if msg.stopReason == "aborted":
        raise SummarizationAborted("Summarization was cancelled")
    if msg.stopReason == "error":
        raise SummarizationError(msg.errorMessage or "Unknown error")
    return text_of(msg.content, "\n")


def _conversation(messages: list[Any]) -> str:
    return f"<conversation>\n{serialize_conversation(convert_to_llm(messages))}\n</conversation>\n\n"


async def generate_summary(
    messages: list[Any],
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    previous_summary: str | None = None,
    stream_fn: StreamFn | None = None,
) -> str:
    instructions = prompts.UPDATE_SUMMARY_PROMPT if previous_summary else prompts.SUMMARY_PROMPT
    if custom_instructions:
        instructions += f"\n\nAdditional focus: {custom_instructions}"
    text = _conversation(messages)
    if previous_summary:
        text += f"<previous-summary>\n{previous_summary}\n</previous-summary>\n\n"
    text += instructions
    return await _request(
        model,
        text,
        int(0.8 * reserve_tokens),
        api_key,
        signal,
        reasoning="high" if model.reasoning else None,
        stream_fn=stream_fn,
    )


async def compact(
    prep: CompactionPreparation,
    model: Model,
    reserve_tokens: int,
    api_key: str | None,
    custom_instructions: str | None = None,
    signal: AbortSignal | None = None,
    stream_fn: StreamFn | None = None,
) -> CompactionResult:
    """Summarise what the preparation drops. Raises SummarizationError / SummarizationAborted."""
    try:
        if prep.is_split_turn and prep.turn_prefix_messages:

            async def history() -> str:
                if not prep.messages_to_summarize:
                    return prompts.NO_PRIOR_HISTORY
                return await generate_summary(
                    prep.messages_to_summarize,
                    model,
                    reserve_tokens,
                    api_key,
                    signal,
                    custom_instructions,
                    prep.previous_summary,
                    stream_fn,
                )

            prefix_prompt = _conversation(prep.turn_prefix_messages) + prompts.TURN_PREFIX_PROMPT
            hist, prefix = await asyncio.gather(
                history(),
                _request(
                    model, prefix_prompt, int(0.5 * reserve_tokens), api_key, signal, stream_fn=stream_fn
                ),
            )
            summary = hist + prompts.SPLIT_TURN_JOINER + prefix
        else:
            summary = await generate_summary(
                prep.messages_to_summarize,
                model,
                reserve_tokens,
                api_key,
                signal,
                custom_instructions,
                prep.previous_summary,
                stream_fn,
            )
    except SummarizationError as exc:
        raise SummarizationError(f"Summarization failed: {exc}") from exc
    read_files, modified_files = prep.file_ops.lists()
    summary += format_file_operations(read_files, modified_files)
    return CompactionResult(
        summary=summary,
        first_kept_entry_id=prep.first_kept_entry_id,
        tokens_before=prep.tokens_before,
        details={"readFiles": read_files, "modifiedFiles": modified_files},
    )


@dataclass
class BranchSummaryResult:
    """The summary of an abandoned branch and the files it touched, or whether it was aborted or failed."""

    summary: str | None = None
    read_files: list[str] = field(default_factory=list)
    modified_files: list[str] = field(default_factory=list)
    aborted: bool = False
    error: str | None = None


async def generate_branch_summary(
    entries: list[dict[str, Any]],
    model: Model,
    api_key: str | None,
    signal: AbortSignal | None = None,
    custom_instructions: str | None = None,
    replace_instructions: bool = False,
    reserve_tokens: int = 16384,
    stream_fn: StreamFn | None = None,
) -> BranchSummaryResult:
    budget = (model.contextWindow or 128000) - reserve_tokens
    prep = prepare_branch_entries(entries, budget)
    if not prep.messages:
        return BranchSummaryResult(summary="No content to summarize")
    if replace_instructions and custom_instructions:
        instructions = custom_instructions
    elif custom_instructions:
        instructions = f"{prompts.BRANCH_SUMMARY_PROMPT}\n\nAdditional focus: {custom_instructions}"
    else:
        instructions = prompts.BRANCH_SUMMARY_PROMPT
    try:
        text = await _request(
            model, _conversation(prep.messages) + instructions, 2048, api_key, signal, stream_fn=stream_fn
        )
    except SummarizationAborted:
        return BranchSummaryResult(aborted=True)
    except SummarizationError as exc:
        return BranchSummaryResult(error=str(exc) or "Summarization failed")
    read_files, modified_files = prep.file_ops.lists()
    summary = prompts.BRANCH_SUMMARY_PREAMBLE + text + format_file_operations(read_files, modified_files)
    return BranchSummaryResult(summary=summary, read_files=read_files, modified_files=modified_files)
