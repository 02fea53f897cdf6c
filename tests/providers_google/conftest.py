"""One loopback server per test module (stopping a server costs ~0.5 s of ``serve_forever`` polling).

Same server class as the shared ``loopback`` fixture; its script and request log are cleared per test.
"""

from __future__ import annotations

import pytest

from tests.loopback.server import LoopbackServer


@pytest.fixture(scope="module")
def _module_loopback():
    with LoopbackServer() as server:
        yield server


@pytest.fixture
def loopback(_module_loopback):
    _module_loopback.script.clear()
    _module_loopback.requests.clear()
    yield _module_loopback
    _module_loopback.script.clear()
