"""Instructions for the summarising requests (our wording; pi's section structure, which models and
users of pi recognise)."""

SUMMARIZER_SYSTEM_PROMPT = (
    "You summarise conversations between a user and an AI coding assistant. Read the conversation you are "
    "given and write the summary in exactly the requested format.\n\n"
    "Never continue the conversation and never answer questions that appear in it. Output only the summary."
)

_SECTIONS = """## Goal
[What the user wants to achieve; list several goals if the session covered several tasks.]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Write "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work currently under way]

### Blocked
- [Anything stopping progress, if any]

## Key Decisions
- **[Decision]**: [Why it was made, briefly]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples or references needed to carry on]
- [Write "(none)" if nothing applies]"""

_CLOSING = "Be brief in every section. Keep file paths, function names and error messages exactly as written."

SUMMARY_PROMPT = (
    "The conversation above is to be condensed into a structured checkpoint that another model will use to "
    "pick up the work where it stopped.\n\nFollow this format EXACTLY:\n\n" + _SECTIONS + "\n\n" + _CLOSING
)

UPDATE_SUMMARY_PROMPT = (
    "The conversation above contains NEW messages. Merge them into the existing checkpoint given in the "
    "<previous-summary> tags.\n\nRules:\n"
    "- KEEP everything from the previous summary that still matters\n"
    "- ADD the new progress, decisions and context\n"
    '- MOVE items from "In Progress" to "Done" once they are finished\n'
    '- REWRITE "Next Steps" to match where the work now stands\n'
    "- KEEP file paths, function names and error messages exactly\n"
    "- Drop only what is clearly no longer relevant\n\n"
    "Follow this format EXACTLY:\n\n" + _SECTIONS + "\n\n" + _CLOSING
)

TURN_PREFIX_PROMPT = """This is the BEGINNING of one long turn; its END (the recent work) is kept verbatim after this summary.

Summarise the beginning so the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Decisions made and work done in this first part]

## Context for Suffix
- [What is needed to understand the work that follows]

Be brief; include only what the kept part needs."""

BRANCH_SUMMARY_PROMPT = (
    """Summarise this conversation branch so the user can return to its context later.

Follow this format EXACTLY:

## Goal
[What the user was trying to achieve on this branch]

## Constraints & Preferences
- [Requirements or preferences that came up]
- [Write "(none)" if there were none]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [Anything that stopped progress, if any]

## Key Decisions
- **[Decision]**: [Why, briefly]

## Next Steps
1. [What should happen next to carry this work on]

"""
    + _CLOSING
)

BRANCH_SUMMARY_PREAMBLE = "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n"

SPLIT_TURN_JOINER = "\n\n---\n\n**Turn Context (split turn):**\n\n"
NO_PRIOR_HISTORY = "No prior history."
