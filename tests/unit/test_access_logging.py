"""Logging is the application's: the access layer (which PolicyConsumer uses inside other
programs) leaves every logger as it found it; only the tools' entry point sets levels."""

from __future__ import annotations

import logging

import pytest

from kafka_groups.access.cluster import KafkaAccess
from kafka_groups.cli.runner import configure_logging
from kafka_groups.settings import resolve_settings

CLIENT_LOGGERS = ("kafka", "kafka_groups.librdkafka")


@pytest.fixture
def restored():
    """The client loggers' levels and the root handlers, put back after the test."""
    levels = {name: logging.getLogger(name).level for name in CLIENT_LOGGERS}
    handlers = list(logging.getLogger().handlers)
    root_level = logging.getLogger().level
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)
    logging.getLogger().handlers[:] = handlers
    logging.getLogger().setLevel(root_level)


@pytest.mark.parametrize("debug", [False, True])
def test_building_the_access_changes_no_logger(restored, debug):
    for name in CLIENT_LOGGERS:
        logging.getLogger(name).setLevel(logging.INFO)
    root_handlers = list(logging.getLogger().handlers)
    KafkaAccess(resolve_settings("127.0.0.1:9", None, 1000, debug))  # connects to nothing until asked
    assert {name: logging.getLogger(name).level for name in CLIENT_LOGGERS} == dict.fromkeys(
        CLIENT_LOGGERS, logging.INFO
    )
    assert logging.getLogger().handlers == root_handlers


def test_the_tools_silence_the_clients_unless_debug(restored):
    configure_logging(debug=False)
    for name in CLIENT_LOGGERS:
        assert not logging.getLogger(name).isEnabledFor(logging.CRITICAL)
    configure_logging(debug=True)
    for name in CLIENT_LOGGERS:
        assert logging.getLogger(name).isEnabledFor(logging.DEBUG)
