"""Fault injection for bash: the full-output log's permissions and retention, and processes a command leaves
running in the background (``&``, ``nohup``, ``setsid``, SIGTERM-proof, env-wiping, double-forked) — ended
when the app exits unless ``bash.keepBackgroundProcesses`` keeps them. In process, and through the real
``pi`` in print and rpc mode."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import stat
import tempfile
import time

import pytest

from pi_app.session.user_bash import run_user_bash
from pi_app.tools import ToolOptions, bash_logs, process_registry
from pi_app.tools.bash import BashTool
from tests.modes import scripts
from tests.modes.harness import make_env
from tests.waits import HANG_GUARD_S

# Each line starts one kind of background process and prints its pid. Together they cover a plain job,
# nohup, a new session, one that ignores SIGTERM (needs the SIGKILL), one with an empty environment (found
# by its process group) and a double fork into a new session (found by the environment marker).
BACKGROUND = """\
sleep 1000 & echo $!
nohup sleep 1000 >/dev/null 2>&1 & echo $!
setsid sleep 1000 >/dev/null 2>&1 & echo $!
(trap '' TERM; exec sleep 1000) >/dev/null 2>&1 & echo $!
env -i sleep 1000 >/dev/null 2>&1 & echo $!
setsid sh -c 'sleep 1000 >/dev/null 2>&1 & echo $! > grandchild.pid.tmp; mv grandchild.pid.tmp grandchild.pid' \
    >/dev/null 2>&1 &
while [ ! -s grandchild.pid ]; do sleep 0.01; done
"""


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return False
    return data[data.rfind(b")") + 2 : data.rfind(b")") + 3] != b"Z"


def wait_until(predicate, timeout: float) -> bool:
    """Poll a real condition until it holds or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def read_pids(output: str, cwd) -> list[int]:
    pids = [int(line) for line in output.split() if line.strip().isdigit()]
    return [*pids, int((cwd / "grandchild.pid").read_text())]


def kill_all(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture(autouse=True)
def _clean_registry():
    process_registry.terminate_all(grace=0.1)  # nothing from other tests in this worker
    yield
    process_registry.terminate_all(grace=0.1)


# ---------------------------------------------------------------- in process
async def test_background_processes_return_at_once_and_end_with_terminate_all(tmp_path):
    # The call does not wait for its background processes: they sleep far beyond the guard.
    async with asyncio.timeout(HANG_GUARD_S):
        result = await BashTool(str(tmp_path)).execute("1", {"command": BACKGROUND})
    pids = read_pids(result.content[0].text, tmp_path)
    try:
        assert len(pids) == 6 and all(alive(p) for p in pids)
        process_registry.terminate_all()
        _assert_gone(pids)
    finally:
        kill_all(pids)


async def test_keep_setting_lets_background_processes_survive(tmp_path):
    tool = BashTool(str(tmp_path), ToolOptions(keep_background_processes=True))
    result = await tool.execute("1", {"command": BACKGROUND})
    pids = read_pids(result.content[0].text, tmp_path)
    try:
        process_registry.terminate_all()
        assert all(alive(p) for p in pids)
    finally:
        kill_all(pids)


async def test_user_bang_command_follows_the_same_rule(tmp_path):
    result = await run_user_bash("setsid sleep 1000 >/dev/null 2>&1 & echo $!", str(tmp_path), ToolOptions())
    pid = int(result.output.strip())
    try:
        assert result.exit_code == 0 and alive(pid)
        process_registry.terminate_all()
        _assert_gone([pid])
    finally:
        kill_all([pid])


async def test_finished_call_without_survivors_is_not_signalled_later(tmp_path):
    await BashTool(str(tmp_path)).execute("1", {"command": "true"})
    # the group is gone: its number is forgotten (the kernel may reuse it), only the marker stays
    assert process_registry.terminate_all() == 0


# ---------------------------------------------------------------- full-output log
async def test_full_output_log_is_private_and_removed_at_exit(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    result = await BashTool(str(tmp_path)).execute("1", {"command": "seq 1 100000"})
    path = result.details["fullOutputPath"]
    assert os.path.dirname(path) == str(tmp_path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as fh:
        assert fh.read().split() == [str(i) for i in range(1, 100001)]
    bash_logs.remove_own_logs()
    assert not os.path.exists(path)


def test_stale_logs_of_this_user_are_swept(tmp_path):
    old = tmp_path / "pi-bash-0123456789abcdef.log"
    fresh = tmp_path / "pi-bash-fedcba9876543210.log"
    other = tmp_path / "pi-bash-notes.log"
    for f in (old, fresh, other):
        f.write_text("x")
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(old, (week_ago, week_ago))
    os.utime(other, (week_ago, week_ago))
    assert bash_logs.sweep_stale(str(tmp_path)) == [str(old)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [fresh.name, other.name]


# ---------------------------------------------------------------- the real pi: print and rpc mode
def _bash_exchange(loopback, command: str) -> None:
    api = "openai-completions"
    loopback.add(
        scripts.tool_call(api, "call_bg", "bash", {"command": command}),
        scripts.text(api, "started"),
    )


def _assert_gone(pids: list[int]) -> None:
    """Killed processes are reaped asynchronously; one left running would sleep far past the guard."""
    assert wait_until(lambda: not any(alive(p) for p in pids), HANG_GUARD_S), [p for p in pids if alive(p)]


def _print_run(tmp_path, loopback, keep: bool):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    if keep:
        (env.agent_dir / "settings.json").write_text(json.dumps({"bash": {"keepBackgroundProcesses": True}}))
    _bash_exchange(loopback, "exec > bg.pids\n" + BACKGROUND)
    result = env.run("--no-session", "-p", "start the servers", timeout=HANG_GUARD_S)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "started\n" and "Traceback" not in result.stderr
    return env, read_pids((env.project / "bg.pids").read_text(), env.project)


def test_print_mode_exit_ends_background_processes(tmp_path, loopback):
    _, pids = _print_run(tmp_path, loopback, keep=False)
    try:
        assert len(pids) == 6
        _assert_gone(pids)
    finally:
        kill_all(pids)


def test_print_mode_keep_setting_leaves_them_running(tmp_path, loopback):
    _, pids = _print_run(tmp_path, loopback, keep=True)
    try:
        assert all(alive(p) for p in pids)
    finally:
        kill_all(pids)


def test_rpc_mode_exit_ends_tool_and_user_bash_processes(tmp_path, loopback):
    from tests.modes.test_rpc_subprocess import RpcProcess

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    _bash_exchange(loopback, "setsid sleep 1000 >/dev/null 2>&1 & echo $! > tool.pid")
    rpc = RpcProcess(env.popen("--mode", "rpc", "--no-session"))
    pids: list[int] = []
    try:
        assert rpc.call({"id": "p1", "type": "prompt", "message": "go"})["success"]
        rpc.wait_for(lambda r: r.get("type") == "agent_end", timeout=HANG_GUARD_S)
        pids.append(int((env.project / "tool.pid").read_text()))
        user = rpc.call({"id": "b1", "type": "bash", "command": "nohup sleep 1000 >/dev/null 2>&1 & echo $!"})
        pids.append(int(user["data"]["output"].strip()))
        assert all(alive(p) for p in pids)
    finally:
        rpc.proc.stdin.close()  # EOF: pi exits
        code = rpc.proc.wait(timeout=HANG_GUARD_S)
        stderr = rpc.proc.stderr.read().decode()
        rpc.proc.stdout.close()
        rpc.proc.stderr.close()
    try:
        assert code == 0, stderr
        assert "Traceback" not in stderr
        _assert_gone(pids)
    finally:
        kill_all(pids)


# ---------------------------------------------------------------- the real pi: the TUI, left with Ctrl+D
def test_tui_ctrl_d_ends_user_bash_background_processes(tmp_path, loopback):
    import fcntl
    import pty
    import struct
    import termios
    import threading

    from tests.modes.harness import PI_CMD

    env = make_env(tmp_path)
    env.write_models(loopback.url)
    child, fd = pty.fork()
    if child == 0:  # pragma: no cover - the exec'd pi
        os.chdir(env.project)
        os.execvpe(PI_CMD[0], [*PI_CMD, "--no-session"], env.env(TERM="xterm-256color"))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    screen = bytearray()

    def pump() -> None:  # the app blocks if nobody reads its output
        with contextlib.suppress(OSError):
            while data := os.read(fd, 65536):
                screen.extend(data)

    threading.Thread(target=pump, daemon=True).start()
    pid_file = env.project / "user.pid"
    bg: list[int] = []
    exited = False
    try:
        assert wait_until(lambda: b"loop-model" in screen, HANG_GUARD_S), bytes(screen[-500:])
        os.write(
            fd, b"!setsid sleep 1000 >/dev/null 2>&1 & echo $! > user.pid.tmp; mv user.pid.tmp user.pid\r"
        )
        assert wait_until(pid_file.exists, HANG_GUARD_S)
        bg.append(int(pid_file.read_text()))
        assert alive(bg[0])
        # Ctrl+D on the empty editor exits, possibly while the !cmd is still being wrapped up
        os.write(fd, b"\x04")
        status: list[int] = []

        def done() -> bool:
            got, code = os.waitpid(child, os.WNOHANG)
            if got:
                status.append(code)
            return bool(got)

        exited = wait_until(done, HANG_GUARD_S)
        assert exited and os.waitstatus_to_exitcode(status[0]) == 0
        _assert_gone(bg)
    finally:
        if not exited:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
        os.close(fd)
        kill_all(bg)


def test_sigterm_to_pi_still_ends_background_processes(tmp_path, loopback):
    env = make_env(tmp_path)
    env.write_models(loopback.url)
    # the call backgrounds a daemon, then stays busy in the foreground until pi is killed
    _bash_exchange(
        loopback, "setsid sleep 1000 >/dev/null 2>&1 & echo $! > bg.pid.tmp; mv bg.pid.tmp bg.pid; sleep 60"
    )
    proc = env.popen("--no-session", "-p", "go")
    proc.stdin.close()  # nothing piped in
    pid_file = env.project / "bg.pid"
    bg: list[int] = []
    try:
        assert wait_until(pid_file.exists, HANG_GUARD_S)
        bg.append(int(pid_file.read_text()))
        assert alive(bg[0])
        proc.send_signal(signal.SIGTERM)
        assert (
            proc.wait(timeout=HANG_GUARD_S) == -signal.SIGTERM
        )  # still dies of the signal, after cleaning up
        _assert_gone(bg)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
        kill_all(bg)
