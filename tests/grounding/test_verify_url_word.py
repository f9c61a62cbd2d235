""" "URL" in capitals names what the evidence writes out as one ("scheme://..."): it is no name
the evidence must hold as written. Made-up sentences, no benchmark item."""

from __future__ import annotations

from tests.grounding.support_checks import dropped, kept


def test_url_is_supported_by_a_url_of_the_evidence() -> None:
    code = "Relay(upstream='socks5://user:pass@host:port')"
    kept(f"Then pass the upstream URL: `{code}`.", code)
    kept(f"Pass the relay URLs as `{code}`.", code)


def test_url_without_a_url_in_the_evidence_is_dropped() -> None:
    assert "URL" in dropped("Then pass the upstream URL: `Relay(upstream=p)`.", "Relay(upstream=p)")
