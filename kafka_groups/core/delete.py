"""``--delete-offsets`` (KIP-496) and ``--delete``: the outcomes and how the Apache tool
words and orders them. Pure code: the command gathers the answers, this decides what they say.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.javaorder import hashmap_order, string_keys_order, topic_partition_hash
from kafka_groups.core.kafka_errors import KafkaErrorInfo, denied
from kafka_groups.core.reset_args import parse_topic_arg

# Group-level errors the Apache tool words with the error's own message.
_GROUP_LEVEL = frozenset(
    {"INVALID_GROUP_ID", "GROUP_ID_NOT_FOUND", "GROUP_AUTHORIZATION_FAILED", "NON_EMPTY_GROUP"}
)
_PARTITION_LEVEL = frozenset(
    {"GROUP_SUBSCRIBED_TO_TOPIC", "TOPIC_AUTHORIZATION_FAILED", "UNKNOWN_TOPIC_OR_PARTITION"}
)
WHOLE_TOPIC = -1  # the partition of a row for a topic named without partitions that does not exist


class Outcome(enum.Enum):
    """How a delete went, for the exit code: all of it, none of it, or part of it."""

    DONE = "done"
    FAILED = "failed"
    PARTIAL = "partial"


def _outcome(succeeded: int, failed: int) -> Outcome:
    if failed == 0:
        return Outcome.DONE
    return Outcome.PARTIAL if succeeded else Outcome.FAILED


def split_topic_args(args: Iterable[str]) -> tuple[list[TopicPartition], list[str]]:
    """``--topic`` values -> (the partitions named explicitly, the topics named whole).
    Bad ``topic:partitions`` values are usage errors, as in the Apache tool."""
    explicit: dict[TopicPartition, None] = {}
    whole: dict[str, None] = {}
    for arg in args:
        topic, partitions = parse_topic_arg(arg)
        if partitions is None:
            whole[topic] = None
        else:
            explicit.update(dict.fromkeys((topic, p) for p in partitions))
    return list(explicit), list(whole)


def first_partition_error(errors: Mapping[TopicPartition, KafkaErrorInfo | None]) -> KafkaErrorInfo | None:
    """The error the Apache Admin client reports for the whole request when the group-level
    code is NONE: the first failed partition in its HashSet's iteration order."""
    for tp in hashmap_order(errors, lambda k: topic_partition_hash(*k)):
        if errors[tp] is not None:
            return errors[tp]
    return None


@dataclass(frozen=True)
class OffsetDeleteResult:
    group: str
    top_level: KafkaErrorInfo | None  # None: the request succeeded as a whole
    # Every row: None = deleted; partition WHOLE_TOPIC = a named topic that does not exist.
    partitions: Mapping[TopicPartition, KafkaErrorInfo | None]
    backup: str | None = None

    def headline(self) -> str:
        """The Apache tool's first line (with its leading empty line for errors)."""
        error = self.top_level
        if error is None:
            return f"Request succeeded for deleting offsets from group {self.group}."
        if error.name in _GROUP_LEVEL:
            return f"\nError: {error.message}"
        if error.name in _PARTITION_LEVEL:
            return "\nError: Encountered some partition-level error, see the follow-up details."
        return f"\nError: Encountered some unknown error: {error.name}"

    def rows(self) -> list[tuple[str, int, KafkaErrorInfo | None]]:
        """The rows in the Apache order: by the string ``topic + partition`` (so ``t10`` sorts
        before ``t2`` and a whole-topic row sorts as ``t-1``), compared as Java strings."""
        return [
            (t, p, self.partitions[(t, p)])
            for t, p in sorted(self.partitions, key=lambda tp: f"{tp[0]}{tp[1]}".encode("utf-16-be"))
        ]

    @property
    def deleted(self) -> list[TopicPartition]:
        return [(t, p) for t, p, error in self.rows() if error is None and p != WHOLE_TOPIC]

    @property
    def failed(self) -> list[TopicPartition]:
        return [(t, p) for t, p, error in self.rows() if error is not None]

    def problem(self) -> str | None:
        """One line for stderr when not every offset was deleted (None when all were)."""
        outcome = self.outcome
        if outcome is Outcome.DONE:
            return None
        needs = {"group": f"DELETE on group '{self.group}'"}
        if self.top_level is not None and self.top_level.name in _GROUP_LEVEL:
            reason = denied(self.top_level.code, needs) or self.top_level.message
            return f"no offsets of group '{self.group}' were deleted: {reason}"
        topic, partition = self.failed[0]
        error = self.partitions[(topic, partition)]
        where = topic if partition == WHOLE_TOPIC else f"{topic}-{partition}"
        needs["topic"] = f"READ on topic '{topic}'"
        reason = (denied(error.code, needs) or error.message) if error else ""
        first = f"{where}: {reason}"
        if outcome is Outcome.FAILED:
            return f"no offsets of group '{self.group}' were deleted ({first})"
        count = f"{len(self.failed)} of {len(self.partitions)}"
        return f"the offsets of {count} partitions were not deleted ({first})"

    @property
    def outcome(self) -> Outcome:
        if self.top_level is not None and self.top_level.name in _GROUP_LEVEL:
            return Outcome.FAILED
        return _outcome(len(self.deleted), len(self.failed))


@dataclass(frozen=True)
class OffsetDeleteBatch:
    """``--delete-offsets --from-file`` (ours): the offsets of several groups, one request per
    group, in the file's order of groups. ``unsent``: groups not asked after an earlier group's
    request got no answer (each would wait out the timeout too)."""

    results: tuple[OffsetDeleteResult, ...]
    backup: str | None = None
    unsent: tuple[str, ...] = ()

    @property
    def outcome(self) -> Outcome:
        done = [r for r in self.results if r.outcome is Outcome.DONE]
        if len(done) == len(self.results) and not self.unsent:
            return Outcome.DONE
        return Outcome.PARTIAL if any(r.deleted for r in self.results) else Outcome.FAILED

    def problem(self) -> str | None:
        """One line for stderr when not every offset was deleted (None when all were)."""
        first = next((p for r in self.results if (p := r.problem()) is not None), None)
        if self.unsent:
            names = ", ".join(repr(g) for g in self.unsent[:5])
            more = f" and {len(self.unsent) - 5} more" if len(self.unsent) > 5 else ""
            unsent = f"the offsets of group(s) {names}{more} were not sent for deletion"
            first = f"{first}; {unsent}" if first else unsent
        return first


@dataclass(frozen=True)
class GroupDeleteResult:
    deleted: tuple[str, ...]  # in the Apache (HashMap) order
    failed: tuple[tuple[str, KafkaErrorInfo], ...]  # in the Apache (HashMap) order
    backup: str | None = None
    requested: tuple[str, ...] = field(default=(), compare=False)
    kind: str = "consumer"  # "streams" for kafka-streams-groups
    # kafka-streams-groups --delete-all-internal-topics: groups whose internal topics were
    # deleted, and (group, error) for those whose were not; None when not asked.
    internal_deleted: tuple[str, ...] | None = None
    internal_failed: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(
        cls, answers: Mapping[str, KafkaErrorInfo | None], backup: str | None = None, kind: str = "consumer"
    ) -> GroupDeleteResult:
        """Successes and failures, each in the iteration order of the HashMap the Apache tool
        collects them in."""
        ok = [g for g, error in answers.items() if error is None]
        bad = {g: error for g, error in answers.items() if error is not None}
        return cls(
            deleted=tuple(string_keys_order(ok)),
            failed=tuple((g, bad[g]) for g in string_keys_order(bad)),
            backup=backup,
            requested=tuple(answers),
            kind=kind,
        )

    @property
    def outcome(self) -> Outcome:
        return _outcome(len(self.deleted), len(self.failed))

    def problem(self) -> str | None:
        """One line for stderr when not every group was deleted (None when all were)."""
        if not self.failed:
            return None
        group, error = self.failed[0]
        first = f"'{group}': {denied(error.code, {'group': f'DELETE on group {group!r}'}) or error.message}"
        if self.deleted:
            count = f"{len(self.failed)} of {len(self.failed) + len(self.deleted)}"
            return f"{count} groups were not deleted ({first})"
        return f"no group was deleted ({first})"
