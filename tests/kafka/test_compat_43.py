"""Every action of the three tools against the pinned Kafka 4.3 broker (the session's), beside the pinned
Apache tool (tests/compat_cases.py): the baseline the older lines are held to."""

from __future__ import annotations

import pytest

from infra.kafka import KAFKA_VERSION
from tests.compat_cases import CompatCases

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_43]
BROKER_VERSION = KAFKA_VERSION


class TestOn43(CompatCases):
    pass
