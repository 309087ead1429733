"""Every action of the three tools against a Kafka 2.1.1 broker (ZooKeeper 3.5.9: 2.1's own 3.4 client
does not run on Java 17), beside the pinned Apache tool (tests/compat_cases.py). The oldest line the
Apache 4.x tools support: no OffsetDelete, no KIP-464 defaults, no ListGroups states or types."""

from __future__ import annotations

import pytest

from tests.compat_cases import CompatCases

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_21]
BROKER_VERSION = "2.1.1"


class TestOn21(CompatCases):
    pass
