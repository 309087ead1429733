"""Why a secured connection failed, in one line: authentication refused, or which part of the
TLS handshake failed (a CA the truststore lacks, a certificate for another host name).

librdkafka reports both kinds at once through its error callback, where the Java client throws;
``ConnectionWatch`` keeps the first such report so that a command stops at once instead of
waiting out its timeout. librdkafka words every certificate failure alike, so a TLS failure is
looked at once more with Python's ``ssl``, whose verification error names the reason.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from kafka_groups.client_config import ClientSecurity

_AUTHENTICATION = -169  # librdkafka's _AUTHENTICATION
_SSL = -181  # librdkafka's _SSL
_TRANSPORT = -195  # also what a TLS client meets at a listener that does not speak TLS
_WHERE = re.compile(r"^\w+://([^/\s]+)/\S*: ")
_AFTER = re.compile(r" \(after \d+ms in state \w+\)$")
_UNKNOWN_CA = {18, 19, 20, 21}  # X509 self-signed leaf / in chain, no local issuer, leaf unverifiable
_NAME_MISMATCH = {62, 64}  # host name, IP address
_EXPIRED = 10


class ConnectionWatch:
    """Keeps the first authentication or TLS failure librdkafka reports (its ``error_cb``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.code: int | None = None
        self.text = ""

    def on_error(self, error: Any) -> None:
        code = error.code()
        if code == _TRANSPORT and "SSL handshake failed" in error.str():
            code = _SSL
        if code in (_AUTHENTICATION, _SSL):
            with self._lock:
                if self.code is None:
                    self.code, self.text = code, str(error.str())

    @property
    def failed(self) -> bool:
        return self.code is not None

    def explain(self, security: ClientSecurity, timeout_s: float) -> str:
        match = _WHERE.match(self.text)
        address = match.group(1) if match else "the broker"
        reason = _AFTER.sub("", self.text[match.end() :] if match else self.text)
        if self.code == _AUTHENTICATION:
            reason = reason.removeprefix("SASL authentication error: ")
            who = f" as {security.username}" if security.username else ""
            return f"authentication with SASL {security.mechanism}{who} failed at {address}: {reason}"
        return tls_failure(address, security, reason, timeout_s)


def tls_failure(address: str, security: ClientSecurity, fallback: str, timeout_s: float) -> str:
    """Name the cause of a failed TLS handshake with ``address`` (host:port)."""
    import ssl  # only when a handshake failed: most commands never need it

    host, _, port = address.rpartition(":")
    lead = f"TLS handshake with {address} failed: "
    try:
        _handshake(host, int(port), security, timeout_s)
    except ssl.SSLCertVerificationError as exc:
        if exc.verify_code in _NAME_MISMATCH:
            return (
                f"{lead}the broker's certificate is not valid for the host name {host} "
                "(ssl.endpoint.identification.algorithm=https checks it; connect by a name the "
                "certificate lists)"
            )
        if exc.verify_code in _UNKNOWN_CA:
            where = "the truststore (ssl.truststore.*)" if security.truststore else "the system's CA store"
            return f"{lead}the broker's certificate is not signed by a CA in {where}"
        if exc.verify_code == _EXPIRED:
            return f"{lead}the broker's certificate has expired"
        return f"{lead}{exc.verify_message}"
    except (OSError, ValueError):
        pass
    detail = fallback.removeprefix("SSL handshake failed: ")
    if "PLAINTEXT broker listener" in detail:
        detail += " (security.protocol says TLS; the listener does not speak it)"
    if security.keystore is None and "certificate" in detail and "verify" not in detail:
        detail += " (the broker may require a client certificate: ssl.keystore.*)"
    return f"{lead}{detail}"


def _handshake(host: str, port: int, security: ClientSecurity, timeout_s: float) -> None:
    import socket

    from kafka_groups.access.config import ssl_context  # the context kafka-python connects with

    with (
        socket.create_connection((host, port), timeout=max(timeout_s, 1.0)) as raw,
        ssl_context(security).wrap_socket(raw, server_hostname=host),
    ):
        pass


_PROBE_S = 0.25  # per address; a refusal comes back at once, this bounds a silent one


def _addresses(bootstrap_servers: str) -> list[str]:
    return [a.strip() for a in bootstrap_servers.split(",") if a.strip()]


def _probe(address: str) -> str:
    """``listening``, ``refused`` or ``unknown`` (silent, unresolvable, malformed)."""
    import socket  # only once a cluster did not answer

    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_PROBE_S):
            return "listening"
    except ConnectionRefusedError:
        return "refused"
    except (OSError, ValueError):
        return "unknown"


def refused_addresses(bootstrap_servers: str) -> list[str]:
    """The bootstrap addresses (host:port), when every one of them refuses a TCP connection
    (nothing listens there); empty when any accepts, stays silent or cannot be resolved. Asked
    only after a command could not reach the cluster, to say why in one line."""
    refused = []
    for address in _addresses(bootstrap_servers):
        if _probe(address) != "refused":
            return []
        refused.append(address)
    return refused


def listening_address(bootstrap_servers: str) -> str:
    """The first bootstrap address that accepts a connection (the first one if none does): the
    one to diagnose a failed TLS handshake with, when the list starts with a dead broker."""
    addresses = _addresses(bootstrap_servers)
    return next((a for a in addresses if _probe(a) == "listening"), addresses[0] if addresses else "")
