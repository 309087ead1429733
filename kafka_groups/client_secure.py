"""What a secured connection's properties name beyond the protocol and the mechanism: the TLS
stores and the OAUTHBEARER login. :mod:`kafka_groups.client_config` reads them into these values,
and loads this module only for a properties file that sets them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Store:
    """A truststore or keystore as the properties give it: a file, or PEM text inline."""

    type: str  # PEM, PKCS12 or JKS (as given, upper case; "" when not given)
    location: str | None = None
    password: str | None = None
    pem: str | None = None  # ssl.truststore.certificates / ssl.keystore.certificate.chain
    key_pem: str | None = None  # ssl.keystore.key


@dataclass(frozen=True)
class OAuth:
    """OAUTHBEARER login: an unsecured token made locally, or client credentials from an endpoint."""

    token_endpoint: str | None = None  # None: an unsecured (unsigned) token, as for development
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    principal: str | None = None  # unsecured tokens: the "sub" claim
    lifetime_s: int = 3600
    extensions: Mapping[str, str] = field(default_factory=dict)
