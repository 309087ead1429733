"""``--delete-offsets`` (KIP-496) and ``--delete``.

Both act at once, as the Apache tool does (no ``--execute``), and both save the committed
offsets they remove to a backup file first, so ``--reset-offsets --from-file`` can put them back.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import narrow_backup, save_backup, undo_hint
from kafka_groups.core.delete import (
    WHOLE_TOPIC,
    GroupDeleteResult,
    OffsetDeleteResult,
    Outcome,
    first_partition_error,
    split_topic_args,
)
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.kafka_errors import UNKNOWN_TOPIC_OR_PARTITION, KafkaErrorInfo, error_info
from kafka_groups.core.streams import input_partitions
from kafka_groups.errors import CliError, NotFoundError, PartialFailure, UsageError
from kafka_groups.render import OutputFormat, emit
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


MANY_GROUPS = 10  # more groups than this: their offsets are fetched in one request per coordinator


def finish(outcome: Outcome, problem: str | None) -> None:
    """Exit 1 when nothing was deleted, 3 when part was (the report is already printed)."""
    if problem and outcome is Outcome.FAILED:
        raise CliError(problem)
    if problem and outcome is Outcome.PARTIAL:
        raise PartialFailure(problem)


@dataclass(frozen=True)
class DeleteOffsetsRequest:
    connection: ConnectionArgs
    group: str
    topics: tuple[str, ...]
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO
    streams: bool = False  # kafka-streams-groups: a streams group, --input-topic
    all_input_topics: bool = False  # streams: every committed source-topic partition

    def execute(self) -> None:
        if self.streams and not self.topics and not self.all_input_topics:
            raise UsageError(
                "Option [delete-offsets] takes the [group] and one of these options: "
                "[all-input-topics], [input-topic]"
            )
        if not self.streams and not self.topics:
            raise UsageError("Option [delete-offsets] takes the following options: [topic], [group]")
        explicit, whole = split_topic_args(self.topics)
        settings = self.connection.resolve()
        from kafka_groups.access.cluster import KafkaAccess

        access = KafkaAccess(settings)
        try:
            result = self._delete(access, explicit, whole)
        finally:
            access.close()
        emit(result, self.output)
        if result.backup:
            tool = "kafka-streams-groups" if self.streams else "kafka-consumer-groups"
            hint = undo_hint("this deletion removed", result.backup, [self.group], self.connection, tool)
            print(hint, file=sys.stderr)
        finish(result.outcome, result.problem())

    def _delete(
        self, access: KafkaAccess, explicit: list[TopicPartition], whole: list[str]
    ) -> OffsetDeleteResult:
        rows: dict[TopicPartition, KafkaErrorInfo | None] = {}
        partitions = dict.fromkeys(explicit)
        if whole:
            known = access.topic_partitions(set(whole))
            for topic in whole:
                if topic in known:
                    partitions.update(dict.fromkeys((topic, p) for p in sorted(known[topic])))
                else:
                    rows[(topic, WHOLE_TOPIC)] = error_info(UNKNOWN_TOPIC_OR_PARTITION)
        current = access.committed_offsets([self.group]).get(self.group, {})
        if self.all_input_topics:
            found, missing = access.describe_streams_groups([self.group])
            if self.group not in found:
                raise NotFoundError(missing.get(self.group, f"Group {self.group} not found."))
            partitions.update(dict.fromkeys(input_partitions(found[self.group], sorted(current))))
        chosen = list(partitions)
        about_to_go = {tp: c.offset for tp, c in current.items() if tp in partitions}
        backup = save_backup("delete-offsets", {self.group: about_to_go}, self.backup_dir)
        group_error, answers = access.delete_offsets(self.group, chosen)
        rows.update(answers)
        top_level = group_error or first_partition_error(answers)
        if backup:
            gone = {tp: o for tp, o in about_to_go.items() if rows.get(tp, True) is None}
            backup = narrow_backup(backup, {self.group: gone})
        return OffsetDeleteResult(self.group, top_level, rows, backup)


@dataclass(frozen=True)
class DeleteGroupsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO

    def execute(self) -> None:
        if bool(self.groups) == self.all_groups:
            if self.groups:
                raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
            raise UsageError("Option [delete] takes one of these options: [all-groups], [group]")
        settings = self.connection.resolve()
        from kafka_groups.access.cluster import KafkaAccess

        access = KafkaAccess(settings)
        try:
            ids = access.consumer_group_ids() if self.all_groups else list(dict.fromkeys(self.groups))
            backup = None
            if ids:
                offsets = access.committed_offsets(ids, many=len(ids) > MANY_GROUPS)
                current = {g: {tp: c.offset for tp, c in offsets.get(g, {}).items()} for g in ids}
                backup = save_backup("delete", current, self.backup_dir)
            answers = access.delete_groups(ids)
        finally:
            access.close()
        if backup:
            backup = narrow_backup(backup, {g: current[g] for g, error in answers.items() if error is None})
        result = GroupDeleteResult.of(answers, backup)
        emit(result, self.output)
        if result.backup:
            deleted = [g for g in result.deleted if current.get(g)]
            print(
                undo_hint("of the deleted groups", result.backup, deleted, self.connection), file=sys.stderr
            )
        finish(result.outcome, result.problem())
