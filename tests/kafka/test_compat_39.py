"""Every action of the three tools against a Kafka 3.9 broker (KRaft; the session's compatibility broker),
beside the pinned Apache tool (tests/compat_cases.py): group types and DescribeTopicPartitions, but no
KIP-848 groups unless switched on and no streams groups. The cases cover what this module's own tests
checked before (--list with its filters, every --describe view, an active group, a missing group, reset
plans and an executed reset)."""

from __future__ import annotations

import pytest

from infra.kafka import COMPAT_VERSION
from tests.compat_cases import CompatCases

pytestmark = [pytest.mark.kafka, pytest.mark.compat, pytest.mark.compat_39]
BROKER_VERSION = COMPAT_VERSION


class TestOn39(CompatCases):
    pass
