import asyncio
import os
import resource
import signal
import time
import tracemalloc

import pytest

from pi_app.agent.tool import ToolError
from pi_app.ai.abort import AbortController
from pi_app.tools import ToolOptions
from pi_app.tools.bash import UPDATE_INTERVAL_S, BashTool
from tests.waits import HANG_GUARD_S, wait_until


def alive(pid: int) -> bool:
    """A process counts as alive unless it is gone or a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
        return data[data.rfind(b")") + 2 : data.rfind(b")") + 3] != b"Z"
    except OSError:
        return False


def kill_quietly(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


async def wait_dead(pids: list[int]) -> None:
    """Killed processes are reaped asynchronously: poll real process state, bounded by the hang guard."""
    await wait_until(lambda: not any(alive(p) for p in pids), f"processes {pids} to end")


async def run(cmd, tmp_path, options=None, **params):
    return await BashTool(str(tmp_path), options).execute(
        "1", {"command": cmd, **params}, params.pop("signal", None)
    )


async def test_output_merged_and_no_output(tmp_path):
    r = await run("echo out; echo err >&2; echo out2", tmp_path)
    assert r.content[0].text == "out\nerr\nout2\n" and r.details is None
    r = await run("true", tmp_path)
    assert r.content[0].text == "(no output)"


async def test_exit_code_error(tmp_path):
    with pytest.raises(ToolError) as e:
        await run("echo oops; exit 3", tmp_path)
    assert str(e.value) == "oops\n\n\nCommand exited with code 3"
    with pytest.raises(ToolError) as e:
        await run("exit 2", tmp_path)
    assert str(e.value) == "(no output)\n\nCommand exited with code 2"


async def test_runs_in_cwd_with_prefix_and_stdin_devnull(tmp_path):
    opts = ToolOptions(shell_command_prefix="export GREETING=hi")
    r = await run("pwd; echo $GREETING; cat; echo done", tmp_path, opts)
    assert r.content[0].text == f"{tmp_path}\nhi\ndone\n"


async def test_bin_dir_prepended_to_path(tmp_path):
    r = await run("echo $PATH", tmp_path, ToolOptions(bin_dir="/opt/pi-bin"))
    assert r.content[0].text.startswith("/opt/pi-bin:")


async def test_missing_cwd_and_shell(tmp_path):
    with pytest.raises(ToolError) as e:
        await BashTool(str(tmp_path / "gone")).execute("1", {"command": "true"})
    assert (
        str(e.value)
        == f"Working directory does not exist: {tmp_path / 'gone'}\nCannot execute bash commands."
    )
    with pytest.raises(
        ToolError, match="^Custom shell path not found: /no/such/shell\nPlease update shellPath in "
    ):
        await run("true", tmp_path, ToolOptions(shell_path="/no/such/shell"))


async def test_background_daemon_does_not_block(tmp_path):
    async with asyncio.timeout(HANG_GUARD_S):  # the daemon outlives the guard: waiting for it would fail
        r = await run("sleep 600 & echo $!", tmp_path)
    pid = int(r.content[0].text.strip())
    try:
        assert alive(pid)  # a deliberate daemon survives a normal exit, as in pi
    finally:
        kill_quietly(pid)


async def test_timeout_kills_whole_tree(tmp_path):
    with pytest.raises(ToolError) as e:
        async with asyncio.timeout(HANG_GUARD_S):
            await run("sleep 600 & echo $!; bash -c 'sleep 600' & echo $!; sleep 600", tmp_path, timeout=0.5)
    text = str(e.value)
    assert text.endswith("\n\nCommand timed out after 0.5 seconds")
    pids = [int(x) for x in text.split("\n\n")[0].split()]
    assert len(pids) == 2
    await wait_dead(pids)


async def test_timeout_escalates_to_sigkill(tmp_path):
    with pytest.raises(ToolError, match=r"Command timed out after 1 seconds$") as e:
        async with asyncio.timeout(HANG_GUARD_S):
            await run(
                "trap '' TERM; echo $$; while :; do sleep 0.05; done", tmp_path, ToolOptions(bash_timeout=1)
            )
    shell = int(str(e.value).split("\n\n")[0])
    await wait_dead([shell])  # it ignores SIGTERM: only the SIGKILL after the grace period ends it


async def test_abort_mid_run(tmp_path):
    ctl = AbortController()
    asyncio.get_running_loop().call_later(0.3, ctl.abort)
    with pytest.raises(ToolError) as e:
        async with asyncio.timeout(HANG_GUARD_S):
            await BashTool(str(tmp_path)).execute(
                "1", {"command": "echo start; sleep 600 & echo $!; wait"}, ctl.signal
            )
    out, status = str(e.value).rsplit("\n\n", 1)
    assert status == "Command aborted" and out.startswith("start\n")
    await wait_dead([int(out.split()[1])])


async def test_invalid_utf8_binary_and_ansi(tmp_path):
    r = await run(r"printf 'a\xff\xfeb\n\033[31mred\033[0m \033]0;title\007\x01ok\000z\n'", tmp_path)
    assert r.content[0].text == "a\ufffd\ufffdb\nred okz\n"


async def test_truncation_notice_and_full_output_file(tmp_path):
    r = await run("seq 1 3000", tmp_path)
    text = r.content[0].text
    path = r.details["fullOutputPath"]
    try:
        assert text.endswith(f"\n\n[Showing lines 1002-3001 of 3001. Full output: {path}]")
        assert (
            os.path.basename(path).startswith("pi-bash-")
            and len(os.path.basename(path)) == len("pi-bash-.log") + 16
        )
        with open(path) as fh:
            assert fh.read() == "".join(f"{i}\n" for i in range(1, 3001))
        assert r.details["truncation"]["truncatedBy"] == "lines"
    finally:
        os.unlink(path)


async def test_bytes_limit_and_partial_last_line(tmp_path):
    r = await run("head -c 70000 /dev/zero | tr '\\0' x", tmp_path)
    path = r.details["fullOutputPath"]
    os.unlink(path)
    assert (
        r.content[0].text
        == "x" * 51200 + f"\n\n[Showing last 50.0KB of line 1 (line is 68.4KB). Full output: {path}]"
    )
    # 512 lines of 99 digits + newline, plus the empty last line, are exactly 51200 bytes
    r = await run("for i in $(seq 1 600); do printf '%099d\\n' $i; done", tmp_path)
    os.unlink(r.details["fullOutputPath"])
    assert r.content[0].text.endswith(
        f"\n\n[Showing lines 89-601 of 601 (50.0KB limit). Full output: {r.details['fullOutputPath']}]"
    )


async def test_streaming_updates_are_throttled(tmp_path):
    updates = []
    times = []

    def on_update(result):
        updates.append(result)
        times.append(time.monotonic())

    await BashTool(str(tmp_path)).execute(
        "1", {"command": "for i in $(seq 1 40); do echo $i; sleep 0.01; done"}, None, on_update
    )
    assert updates[0].content == []
    assert len(updates) >= 2
    assert updates[-1].content[0].text.endswith("39\n40\n")
    # Between the first and the closing update, two updates are never closer than the interval (load only
    # widens the gaps); the closing one is sent at once when the command ends.
    gaps = [later - earlier for earlier, later in zip(times[1:-2], times[2:-1], strict=True)]
    assert all(gap >= UPDATE_INTERVAL_S - 0.005 for gap in gaps), gaps


@pytest.mark.slow
async def test_huge_output_bounded_memory(tmp_path):
    tracemalloc.start()
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        r = await run("yes 'line of output' | head -c 50000000", tmp_path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    rss_growth_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss_before
    path = r.details["fullOutputPath"]
    try:
        assert os.path.getsize(path) == 50_000_000
    finally:
        os.unlink(path)
    # the output is 50 MB; what stays in memory is the rolling tail (about 1 MB measured)
    assert peak < 16 * 1024 * 1024 and rss_growth_kb < 16 * 1024, (peak, rss_growth_kb)
    assert r.details["truncation"]["totalBytes"] == 50_000_000
