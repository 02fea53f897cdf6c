import ssl

from pi_app.ai.providers.http_common import http_client_options


def test_plain_http_skips_tls_and_redirects():
    assert http_client_options("http://127.0.0.1:11434/v1") == {"verify": False, "follow_redirects": False}


def test_https_shares_one_verified_context():
    a = http_client_options("https://api.openai.com/v1")["verify"]
    b = http_client_options("https://api.anthropic.com")["verify"]
    assert a is b
    assert isinstance(a, ssl.SSLContext) and a.verify_mode == ssl.CERT_REQUIRED and a.check_hostname
