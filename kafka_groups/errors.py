"""The one exception tree of the tools and their documented exit codes.

Every failure a user can cause or meet is a ``CliError``; the entry points catch it in one
place, print its message as one line on stderr and exit with its code.
"""

from __future__ import annotations

import enum


class ExitCode(enum.IntEnum):
    """Exit codes shared by every tool (documented in the README)."""

    OK = 0
    ERROR = 1  # the action failed: missing group, unreachable cluster, broker error
    USAGE = 2  # the command line is invalid; nothing was contacted or written
    PARTIAL = 3  # the action ran but some groups or partitions failed
    UNKNOWN = 4  # a write was sent but whether it landed could not be verified
    # --describe --health (the loss radar) when it ran: the worst group decides, LOST over AT_RISK.
    AT_RISK = 5  # nothing lost yet, but records are about to be (retention, unconsumed new partitions)
    LOST = 6  # a group's committed offset lies outside the log: records were lost unread


class CliError(Exception):
    """A failure reported to the user as one line on stderr."""

    exit_code: ExitCode = ExitCode.ERROR
    label = "Error: "  # what precedes the message on stderr

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        # Context printed after the one error line (a JVM's last lines), never part of it.
        self.detail = detail


class UsageError(CliError):
    """The command line is invalid (unknown flag, conflicting options, bad value)."""

    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """A ``--command-config`` file or an environment setting cannot be used."""


class ClusterError(CliError):
    """The cluster could not be reached or answered with an error."""


class UnsupportedByBroker(ClusterError):
    """The broker cannot do what was asked at all (its ApiVersions answer lacks the API or the
    version): no retry or refresh will change that."""


class NotFoundError(CliError):
    """A requested group or topic does not exist."""


class PartialFailure(CliError):
    """Part of the requested work failed; the rest succeeded and was reported."""

    exit_code = ExitCode.PARTIAL


class OutcomeUnknown(CliError):
    """A write was sent to the cluster and no answer said whether it took effect. The message
    names the command that checks it and, where there is one, the undo."""

    exit_code = ExitCode.UNKNOWN


class HealthAlert(CliError):
    """The loss radar found records lost or at risk: its report was printed; the message is
    the one-line summary and the exit code the severity (AT_RISK or LOST)."""

    label = ""

    def __init__(self, message: str, exit_code: ExitCode) -> None:
        super().__init__(message)
        self.exit_code = exit_code


class TopicCommandError(CliError):
    """A kafka-topics failure, worded as the Apache tool words it."""

    label = "Error while executing topic command : "

    def __init__(self, message: str, kafka_code: int | None = None) -> None:
        super().__init__(message)
        self.kafka_code = kafka_code  # the broker's error code, when the broker refused


class TopicUsageError(TopicCommandError):
    """A kafka-topics argument the Apache tool rejects only once it runs (a bad
    ``--replica-assignment`` or ``--config``); ours rejects it before contacting the cluster."""

    exit_code = ExitCode.USAGE
