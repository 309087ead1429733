"""Every action of the three tools against a Kafka 3.6.2 broker (KRaft), beside the pinned Apache tool
(tests/compat_cases.py)."""

from __future__ import annotations

import pytest

from tests.compat_cases import CompatCases

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_36]
BROKER_VERSION = "3.6.2"


class TestOn36(CompatCases):
    pass
