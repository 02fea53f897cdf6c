"""One loopback server for the whole folder (stopping a server costs ~0.5 s), reset before each test."""

from __future__ import annotations

import pytest

from tests.loopback.server import LoopbackServer


@pytest.fixture(scope="package")
def _shared_loopback():
    with LoopbackServer() as server:
        yield server


@pytest.fixture
def loopback(_shared_loopback):
    _shared_loopback.script.clear()
    _shared_loopback.requests.clear()
    yield _shared_loopback
    _shared_loopback.script.clear()
