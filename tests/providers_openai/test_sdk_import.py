"""The openai SDK loads without its type catalogue (issue 15: ``-p hi`` paid ~0.5 s importing ~520 SDK
modules), and every re-exported name still resolves when something asks for it.

One fresh interpreter (the test worker may have imported the SDK already): first a real completions request
and a count of what it loaded, then names read from the deferred packages, from four threads at once too.
"""

from __future__ import annotations

from tests.fresh_interpreter import run_fresh
from tests.loopback.openai_wire import chat_text_stream
from tests.loopback.server import LoopbackServer

SCRIPT = """
import asyncio, sys, threading
from pi_app.ai.stream import complete
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import Context, UserMessage
from tests.providers_openai.helpers import make_model

model = make_model({url!r})
msg = asyncio.run(complete(model, Context(messages=[UserMessage(content="hi")]), StreamOptions(api_key="k")))
print(msg.content[0].text)
print(len([m for m in sys.modules if m.split(".")[0] == "openai"]))
print("openai.types.eval_create_params" in sys.modules, "openai.types.responses.response" in sys.modules)

import openai
import openai.types.responses as responses

got = []
def read():
    got.append(responses.Response.__name__)
threads = [threading.Thread(target=read) for _ in range(4)]
for t in threads: t.start()
for t in threads: t.join()
print(sorted(got))
from openai.types import Batch
from openai.types.chat import ChatCompletion
print(Batch.__module__, ChatCompletion.__module__, openai.types.Completion.__name__)
print(hasattr(openai.types, "NoSuchType"), openai.resources.chat.AsyncChat.__name__)
# a dunder runs the deferred top-level body, as a plain import would (its Azure/Bedrock clients too)
print("openai.lib.azure" in sys.modules, bool(openai.__version__), openai.AzureOpenAI.__name__)
"""


def test_the_sdk_loads_a_fraction_and_every_name_still_resolves() -> None:
    with LoopbackServer() as server:
        server.add(chat_text_stream("hello"))
        done = run_fresh(SCRIPT.format(url=server.url))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    text, count, heavy, threads, names, missing, full = done.stdout.strip().splitlines()
    assert text == "hello"
    # the full SDK is ~520 modules; the client, errors and streaming ~40
    assert int(count) < 100, count
    assert heavy == "False False"
    assert threads == "['Response', 'Response', 'Response', 'Response']"  # each thread got it
    assert names == "openai.types.batch openai.types.chat.chat_completion Completion"
    assert missing == "False AsyncChat"
    assert full == "False True AzureOpenAI"
