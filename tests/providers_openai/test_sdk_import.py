"""The openai SDK loads without its type catalogue (issue 15: ``-p hi`` paid ~0.5 s importing ~520 SDK
modules), and every re-exported name still resolves when something asks for it.

Each check runs in a fresh interpreter: the test worker may have imported the SDK already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.loopback.openai_wire import chat_text_stream
from tests.loopback.server import LoopbackServer


def _python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_completions_request_loads_a_fraction_of_the_sdk() -> None:
    with LoopbackServer() as server:
        server.add(chat_text_stream("hello"))
        out = _python(
            f"""
            import asyncio, sys
            from pi_app.ai.stream import complete
            from pi_app.ai.options import StreamOptions
            from pi_app.ai.types import Context, UserMessage
            from tests.providers_openai.helpers import make_model

            model = make_model({server.url!r})
            msg = asyncio.run(complete(model, Context(messages=[UserMessage(content="hi")]),
                                       StreamOptions(api_key="k")))
            print(msg.content[0].text)
            loaded = [m for m in sys.modules if m.split(".")[0] == "openai"]
            print(len(loaded))
            print("openai.types.eval_create_params" in sys.modules, "openai.types.responses.response" in sys.modules)
            """
        )
    text, count, heavy = out.splitlines()
    assert text == "hello"
    # the full SDK is ~520 modules; the client, errors, streaming and the chat chunk model ~135
    assert int(count) < 250, count
    assert heavy == "False False"


def test_deferred_names_resolve_when_read() -> None:
    out = _python(
        """
        import threading
        from pi_app.ai.providers.sdk_import import defer_sdk_packages
        defer_sdk_packages()
        import openai
        import openai.types.responses as responses

        got = []
        def read():
            got.append(responses.Response.__name__)
        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(sorted(set(got)))
        from openai.types import Batch
        from openai.types.chat import ChatCompletion
        print(Batch.__module__, ChatCompletion.__module__, openai.types.Completion.__name__)
        print(hasattr(openai.types, "NoSuchType"), openai.resources.chat.AsyncChat.__name__)
        """
    )
    threads, names, missing = out.splitlines()
    assert threads == "['Response']"
    assert names == "openai.types.batch openai.types.chat.chat_completion Completion"
    assert missing == "False AsyncChat"
