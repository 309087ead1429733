"""Every action of the three tools against a Kafka 2.8.2 broker (ZooKeeper), beside the pinned Apache tool
(tests/compat_cases.py)."""

from __future__ import annotations

import pytest

from tests.compat_cases import CompatCases

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_28]
BROKER_VERSION = "2.8.2"


class TestOn28(CompatCases):
    pass
