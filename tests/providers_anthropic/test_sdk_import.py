"""The anthropic SDK loads without its type catalogue (issue 15: ``import anthropic`` loads ~2,500 modules,
1.7-2 s of CPU before the first request), and every name it exports still resolves when asked for.

One fresh interpreter (the test worker may have imported the SDK already): a real Messages request and a
count of what it loaded, then names read from the deferred packages. (That a dunder runs a deferred
top-level body is checked with openai's, ~10x cheaper to load whole.)
"""

from __future__ import annotations

from tests.fresh_interpreter import run_fresh
from tests.loopback.anthropic_wire import anthropic_ok, text_block
from tests.loopback.server import LoopbackServer

SCRIPT = """
import asyncio, sys
from pi_app.ai.stream import complete
from pi_app.ai.options import StreamOptions
from pi_app.ai.types import Context, Model, UserMessage

model = Model(id="claude-sonnet-4-5", api="anthropic-messages", provider="anthropic", baseUrl={url!r})
msg = asyncio.run(complete(model, Context(messages=[UserMessage(content="hi")]), StreamOptions(api_key="k")))
print(msg.content[0].text)
print(len([m for m in sys.modules if m.split(".")[0] == "anthropic"]))
print("anthropic.lib.vertex" in sys.modules, "anthropic.types.beta.beta_dream" in sys.modules)

import anthropic
from anthropic.types import Message
from anthropic.types.beta import BetaMessage
print(anthropic.AsyncAnthropic.__name__, Message.__module__, BetaMessage.__module__)
print(hasattr(anthropic.types, "NoSuchType"), anthropic.resources.messages.AsyncMessages.__name__)
"""


def test_the_sdk_loads_a_fraction_and_every_name_still_resolves() -> None:
    with LoopbackServer() as server:
        server.add(anthropic_ok(text_block(0, "hello")))
        done = run_fresh(SCRIPT.format(url=server.url), timeout=90)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    text, count, heavy, names, missing = done.stdout.strip().splitlines()
    assert text == "hello"
    # the whole SDK is ~2,500 modules; the client, its errors, streaming and tracing helpers ~1,000
    assert int(count) < 1_400, count
    assert heavy == "False False"
    assert names == "AsyncAnthropic anthropic.types.message anthropic.types.beta.beta_message"
    assert missing == "False AsyncMessages"
