"""Permission gate: stop dangerous bash commands before they run.

Every ``bash`` tool call is checked against a short list of destructive patterns (``rm -rf``, ``sudo``,
``mkfs``, ``dd of=/dev/…``, writing to a disk device, recursive ``chmod 777``, fork bombs). Without a UI
(print and json modes) a match is blocked and the model is told why; with a UI (the interactive app, RPC)
the user is asked and a "no" blocks it.

    pi -e examples/extensions/permission_gate.py
"""

from __future__ import annotations

import os
import re
import shlex

from pi_app.extensions import ExtensionAPI, ExtensionContext, ToolCallEvent, ToolCallResult

# a function that pipes itself into a background copy of itself: ``:(){ :|:& };:`` and named variants
_FORK_BOMB = re.compile(r"([\w:]+)\s*\(\)\s*\{\s*\1\s*\|\s*\1\s*&\s*;?\s*\}")
# ``> /dev/sda``: a shell redirection straight onto a disk
_DEVICE_WRITE = re.compile(r">\s*/dev/(sd|hd|vd|xvd|nvme|mmcblk|disk)\w*")
# where one simple command ends and the next begins
_SEPARATORS = re.compile(r"&&|\|\||[;|&\n]|\$\(|`|\(|\)")
_AS_ROOT = {"sudo", "doas", "su", "pkexec"}
# programs that run the command that follows them
_WRAPPERS = {"env", "command", "nohup", "time", "exec", "xargs", "nice", "timeout"}


def _flags(args: list[str]) -> tuple[set[str], set[str]]:
    """(short flag letters, long flags) of an argument list."""
    short: set[str] = set()
    long: set[str] = set()
    for arg in args:
        if arg.startswith("--"):
            long.add(arg)
        elif arg.startswith("-") and len(arg) > 1:
            short.update(arg[1:])
    return short, long


def _check_argv(argv: list[str]) -> str | None:
    prog = os.path.basename(argv[0])
    args = argv[1:]
    if prog in _AS_ROOT:
        return f"runs a command as root ({prog})"
    if prog == "rm":
        short, long = _flags(args)
        recursive = bool(short & {"r", "R"}) or "--recursive" in long
        force = "f" in short or "--force" in long
        if recursive and force:
            return "deletes recursively without asking (rm -rf)"
    if prog == "mkfs" or prog.startswith("mkfs."):
        return "formats a filesystem (mkfs)"
    if prog == "dd" and any(a.startswith("of=/dev/") for a in args):
        return "writes raw data to a device (dd of=/dev/…)"
    if prog in ("chmod", "chown"):
        short, long = _flags(args)
        if ("R" in short or "--recursive" in long) and any(a in ("777", "a+rwx", "ugo+rwx") for a in args):
            return f"makes a whole tree world-writable ({prog} -R 777)"
    return None


def dangerous_reason(command: str) -> str | None:
    """Why ``command`` is dangerous, or None. Each simple command of a pipeline or list is checked."""
    if _FORK_BOMB.search(command):
        return "a fork bomb"
    if _DEVICE_WRITE.search(command):
        return "writes straight onto a disk device"
    for segment in _SEPARATORS.split(command):
        try:
            argv = shlex.split(segment)
        except ValueError:  # unbalanced quotes: judge the plain words
            argv = segment.split()
        while argv and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", argv[0]):  # FOO=bar cmd
            argv = argv[1:]
        while argv and os.path.basename(argv[0]) in _WRAPPERS:  # xargs -0 rm -rf, nohup sudo …
            argv = argv[1:]
            while argv and argv[0].startswith("-"):
                argv = argv[1:]
        if argv and (reason := _check_argv(argv)):
            return reason
    return None


def register(pi: ExtensionAPI) -> None:
    async def gate(event: ToolCallEvent, ctx: ExtensionContext) -> ToolCallResult | None:
        if event.tool_name != "bash":
            return None
        command = str(event.input.get("command", ""))
        reason = dangerous_reason(command)
        if reason is None:
            return None
        if not ctx.has_ui:
            return ToolCallResult(
                block=True, reason=f"Dangerous command blocked ({reason}); no UI to ask for permission"
            )
        allowed = await ctx.ui.confirm("Allow a dangerous command?", f"This command {reason}:\n\n  {command}")
        if not allowed:
            return ToolCallResult(block=True, reason=f"Blocked by the user: the command {reason}")
        return None

    pi.on("tool_call", gate)
