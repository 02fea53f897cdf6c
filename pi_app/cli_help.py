"""``pi --help``: the usage text (pi's options, in pi's order and words where they are interface)."""

from __future__ import annotations

HELP_TEXT = """pi - a coding agent for the terminal, with read, bash, edit and write tools

Usage:
  pi [options] [--] [@files...] [messages...]

Commands:
  pi mcp add|remove|list          Configure and check MCP servers (pi mcp --help)
  (pi's install, remove, uninstall, update, list, config and auth are not available here)

Options:
  --provider <name>              Provider to search for --model
  --model <pattern>              Model id or pattern; "provider/id" and a ":<thinking>" suffix work too
  --api-key <key>                API key for this run (otherwise taken from the environment / auth.json)
  --system-prompt <text>         Replace the system prompt (text or a file path; beats SYSTEM.md)
  --append-system-prompt <text>  Add text or a file's contents to the system prompt (repeatable;
                                 replaces APPEND_SYSTEM.md)
  --mode <mode>                  Output mode: text (default), json or rpc
  --print, -p                    Run the given prompt(s) without the UI, print the answer and exit
  --continue, -c                 Continue the most recent session in this directory
  --resume, -r                   Pick a previous session to resume
  --session <path|id>            Open a session by file path or full/partial id
  --session-id <id>              Use this directory's session with this id, creating it otherwise
  --fork <path|id>               Fork a session (file path or full/partial id) into this directory
  --session-dir <dir>            Where sessions are stored and looked up
  --no-session                   Do not save anything (in-memory session)
  --name, -n <name>              Name the session
  --models <patterns>            Comma-separated models to cycle with Ctrl+P (globs and fuzzy
                                 matches, e.g. "anthropic/*,*sonnet*,haiku:low")
  --no-tools, -nt                Start with every tool disabled
  --no-builtin-tools, -nbt       Start with the built-in tools disabled
  --tools, -t <tools>            Comma-separated allowlist of tool names or patterns (*) to enable;
                                 a list of only +name/-name entries adds to or removes from the defaults
  --exclude-tools, -xt <tools>   Comma-separated tool names or patterns (*) to disable, applied last
  --thinking <level>             Thinking level: off, minimal, low, medium, high, xhigh, max
  --extension, -e <path>         Load an extension file or directory, or builtin:<name> (repeatable;
                                 loads even with -ne)
  --no-extensions, -ne           Skip discovered and configured extensions and the built-in ones (MCP)
  --no-mcp                       Disable MCP servers (the builtin:mcp extension) for this run
  --skill <path>                 Load a skill file or directory (repeatable)
  --no-skills, -ns               Skip skill discovery (explicit --skill paths still load)
  --prompt-template <path>       Load a prompt template file or directory (repeatable)
  --no-prompt-templates, -np     Skip prompt template discovery (explicit paths still load)
  --theme <path>                 Load a theme file or directory (repeatable)
  --use-theme <name>             Use this theme for this run
  --no-themes                    Skip theme discovery and loading
  --no-context-files, -nc        Skip AGENTS.md and CLAUDE.md discovery and loading
  --export <in.jsonl> [out]      Write a session file out as HTML (or copy it to a .jsonl path) and exit
  --list-models [search]         Print the available models (optionally fuzzy-filtered) and exit
  --approve, -a                  Trust this folder's project config and resources for this run
  --no-approve, -na              Ignore this folder's trust-gated project config for this run
  --verbose                      Show full startup output even if quietStartup is set
  --tui-mode <mode>              TUI mode: fullscreen (default); regular is not supported
  --offline                      No network access at startup (same as PI_OFFLINE=1)
  --                             End option parsing; the rest are messages and @files
  --help, -h                     Print this help and exit
  --version, -v                  Print the version and exit

Arguments:
  @file                          Attach a file: text is added to the first message, images are attached
  message                        Prompts to send, one after another

Examples:
  pi                                          Start the interactive UI
  pi "Explain what src/main.py does"          Start with a first prompt
  pi @notes.md @screenshot.png "What's wrong?" Include files with the prompt
  pi -p "Summarise the README"                Answer once and exit
  pi -p -- "- Summarise these points"         A prompt that begins with a dash
  pi -c "Where were we?"                      Carry on with the last session
  pi --model openai/gpt-4o-mini "Refactor this"
  pi --model sonnet:high "A hard problem"     Model with a thinking level
  pi --tools read,grep,find,ls -p "Review src/"   Read-only run
  pi --tools +grep,-write                     The default tools plus grep, without write
  pi --exclude-tools 'b*'                     Every default tool but bash
  pi --export session.jsonl out.html          Export a session to HTML

Files:
  ~/.pi/agent/SYSTEM.md, .pi/SYSTEM.md        Replace the default system prompt (the project's wins)
  ~/.pi/agent/APPEND_SYSTEM.md, .pi/APPEND_SYSTEM.md   Add to the system prompt (the project's wins)

Environment:
  PI_CODING_AGENT_DIR            Config and session directory (default: ~/.pi/agent)
  PI_CODING_AGENT_SESSION_DIR    Session storage directory (overridden by --session-dir)
  PI_OFFLINE                     Set to 1/true/yes to skip startup network access
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY, XAI_API_KEY, OPENROUTER_API_KEY,
  MISTRAL_API_KEY, CEREBRAS_API_KEY, ...      Provider API keys

Built-in tool names:
  read                           Read file contents (default)
  bash                           Run shell commands (default)
  edit                           Edit files with exact replacements (default)
  write                          Create or overwrite files (default)
  grep                           Search file contents (off by default)
  find                           Find files by glob pattern (off by default)
  ls                             List directory contents (off by default)
"""
