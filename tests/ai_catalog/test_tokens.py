"""Token counting from the shipped vocabularies, its offline fallback, and message estimates."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

from pi_app.ai import tokens as T
from pi_app.ai.types import (
    AssistantMessage,
    ImageContent,
    TextContent,
    ThinkingContent,
    ToolCall,
    UserMessage,
)


@pytest.fixture
def fresh_cache():
    T.reset_cache()
    yield
    T.reset_cache()


@pytest.fixture
def no_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("network access attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)


def test_known_counts(no_network):
    assert T.count_tokens("hello world") == 2
    assert T.get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]
    assert T.get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert T.count_tokens("") == 0


def test_special_token_text_is_ordinary(no_network):
    # Plain encode() would raise on this; user/file content must just be counted.
    assert T.count_tokens("a <|endoftext|> b") > 3


def test_estimate_is_utf8_bytes_over_four():
    assert T.estimate_tokens("abcd") == 1
    assert T.estimate_tokens("abcde") == 2
    assert T.estimate_tokens("日本語") == 3  # 9 bytes


def test_missing_file_falls_back(monkeypatch, tmp_path, fresh_cache, no_network):
    monkeypatch.setattr(T, "data_path", lambda name: tmp_path / "absent.tiktoken")
    text = "hello world, how are you?"
    assert T.count_tokens(text) == T.estimate_tokens(text)
    assert T.get_encoding() is None


def test_corrupt_file_falls_back(monkeypatch, tmp_path, fresh_cache, no_network):
    bad = tmp_path / "o200k_base.tiktoken"
    bad.write_bytes(b"aGVsbG8= 0\n")  # parses, but the hash is wrong
    monkeypatch.setattr(T, "data_path", lambda name: bad)
    assert T.count_tokens("hello world") == T.estimate_tokens("hello world") == 3
    assert bad.read_bytes() == b"aGVsbG8= 0\n"  # left alone


def test_importing_pi_app_ai_does_not_import_tiktoken():
    code = "import sys, pi_app.ai, pi_app.ai.tokens, pi_app.ai.models; print('tiktoken' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_preload_thread(fresh_cache):
    T.preload("cl100k_base").join(timeout=30)
    assert "cl100k_base" in T._loaded and T._loaded["cl100k_base"] is not None


def test_message_estimates():
    user = UserMessage(content=[TextContent(text="a" * 40), ImageContent(data="xx", mimeType="image/png")])
    assert T.estimate_message_tokens(user) == 10 + T.IMAGE_TOKENS
    assert T.estimate_message_tokens({"role": "user", "content": "abcdefgh"}) == 2
    asst = AssistantMessage(
        content=[
            TextContent(text="x" * 8),
            ThinkingContent(thinking="y" * 4),
            ToolCall(id="1", name="read", arguments={"path": "a"}),
        ]
    )
    # text 2 + thinking 1 + name 1 + '{"path": "a"}' (13 bytes) 4
    assert T.estimate_message_tokens(asst) == 8
    tool_result = {"role": "toolResult", "content": [{"type": "image", "data": "", "mimeType": "image/png"}]}
    assert T.estimate_message_tokens(tool_result) == 1200
    assert T.estimate_message_tokens({"role": "bashExecution", "command": "ls", "output": "abcdef"}) == 3
    assert T.estimate_message_tokens({"role": "compactionSummary", "summary": "s" * 16}) == 4
    assert T.estimate_message_tokens({"role": "custom", "content": "abcd"}) == 1


def test_message_exact_count():
    msg = UserMessage(content="hello world")
    assert T.estimate_message_tokens(msg, count=T.count_tokens) == 2
