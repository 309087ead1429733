"""``--delete-offsets`` (KIP-496) and ``--delete``.

Both act at once, as the Apache tool does (no ``--execute``), and both save the committed
offsets they remove to a backup file first, so ``--reset-offsets --from-file`` can put them back.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import Undo, backup_folder, check_command, narrow_backup, save_backup
from kafka_groups.commands.guard import Landed, Verdict, Write, announce, classify, fault_point
from kafka_groups.commands.select import consumer_group_ids
from kafka_groups.commands.session import cluster_session
from kafka_groups.commands.target import name_target
from kafka_groups.core.delete import (
    WHOLE_TOPIC,
    GroupDeleteResult,
    OffsetDeleteResult,
    Outcome,
    first_partition_error,
    split_topic_args,
)
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.group_select import GroupSelection, announce_matches
from kafka_groups.core.kafka_errors import UNKNOWN_TOPIC_OR_PARTITION, KafkaErrorInfo, error_info
from kafka_groups.core.selectors import check_backup_dir
from kafka_groups.core.streams import input_partitions
from kafka_groups.errors import CliError, NotFoundError, PartialFailure, UnsupportedByBroker, UsageError
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome as CommandOutcome
from kafka_groups.render.outcome import Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


REQUEST_TIMED_OUT = 7
NON_EMPTY_GROUP = 68


def deletion_failure(outcome: Outcome, problem: str | None, verdict: Verdict | None) -> CliError | None:
    """Outcome unknown (4) or not applied (1, 3) as the verdict of an unanswered write says;
    else exit 1 when nothing was deleted, 3 when part was."""
    if verdict is not None and (failure := verdict.failure()) is not None:
        return failure
    if problem and outcome is Outcome.FAILED:
        return CliError(problem)
    if problem and outcome is Outcome.PARTIAL:
        return PartialFailure(problem)
    return None


@dataclass(frozen=True)
class DeleteOffsetsRequest:
    connection: ConnectionArgs
    group: str
    topics: tuple[str, ...]
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO
    streams: bool = False  # kafka-streams-groups: a streams group, --input-topic
    all_input_topics: bool = False  # streams: every committed source-topic partition

    def execute(self, show: Show | None = None) -> CommandOutcome:
        if self.streams and not self.topics and not self.all_input_topics:
            raise UsageError(
                "Option [delete-offsets] takes the [group] and one of these options: "
                "[all-input-topics], [input-topic]"
            )
        if not self.streams and not self.topics:
            raise UsageError("Option [delete-offsets] takes the following options: [topic], [group]")
        check_backup_dir(self.backup_dir)
        explicit, whole = split_topic_args(self.topics)
        notes: list[str] = []
        with cluster_session(self.connection, writes=True) as access:
            self._refuse_unsupported(access)
            result, verdict = self._delete(access, explicit, whole, notes)
        failure = deletion_failure(result.outcome, result.problem(), verdict)
        return CommandOutcome(result, self.output, notices=tuple(notes), failure=failure)

    def _refuse_unsupported(self, access: KafkaAccess) -> None:
        """Before anything is read, backed up or announced: refuse what the broker cannot do, as
        its ApiVersions answer says (no OffsetDelete before Kafka 2.4), and, for
        kafka-streams-groups, a group that is not a streams group (the Apache tool would delete
        a classic group's offsets)."""
        from kafka_groups.core.capabilities import OFFSET_DELETE, offset_delete_refusal

        if self.streams:  # refused first where the broker cannot have streams groups at all
            found, missing = access.describe_streams_groups([self.group])
            if self.group not in found:
                raise NotFoundError(missing.get(self.group, f"Group {self.group} not found."))
        if not access.supports(OFFSET_DELETE):
            raise UnsupportedByBroker(offset_delete_refusal())

    def _delete(
        self, access: KafkaAccess, explicit: list[TopicPartition], whole: list[str], notes: list[str]
    ) -> tuple[OffsetDeleteResult, Verdict | None]:
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
        tool = "kafka-streams-groups" if self.streams else "kafka-consumer-groups"
        name_target(access)
        fault_point("before-backup")
        backup = save_backup("delete-offsets", {self.group: about_to_go}, self.backup_dir)
        fault_point("after-backup")
        way_back = Undo(
            self.connection,
            backup_folder(self.backup_dir),
            tool,
            restore=backup,
            restore_groups=(self.group,),
        )
        announce(way_back.hint("this deletion removed"))

        def read(reader: KafkaAccess) -> dict[TopicPartition, int]:
            held = reader.committed_offsets([self.group]).get(self.group, {})
            return {tp: c.offset for tp, c in held.items() if tp in partitions}

        sent = Write(
            access,
            send=lambda: access.delete_offsets(self.group, chosen),
            read_back=read,
            what="offset deletion",
        ).run()
        verdict = None
        if sent.answer is not None:
            group_error, answers = sent.answer
        else:  # no answer: what the read-back shows decides
            landed = classify(sent.state, about_to_go, {})
            error = error_info(REQUEST_TIMED_OUT)  # how the rows show a partition that did not change
            group_error, answers = None, dict.fromkeys(chosen, None if landed is Landed.DONE else error)
            if landed is Landed.DONE:
                notes.append(
                    f'Note: deleting the offsets answered "{sent.send_error}", but reading them back '
                    "shows them gone: the deletion is done."
                )
            else:
                undo = way_back.command()
                why = f"{sent.send_error}; {sent.read_error}" if sent.read_error else sent.send_error
                check = check_command([self.group], self.connection, tool)
                verdict = Verdict(
                    "offset deletion",
                    {f"group '{self.group}'": landed},
                    {f"group '{self.group}'": why or ""},
                    check,
                    undo,
                )
        rows.update(answers)
        top_level = group_error or first_partition_error(answers)
        if backup and verdict is None:
            gone = {tp: o for tp, o in about_to_go.items() if rows.get(tp, True) is None}
            backup = narrow_backup(backup, {self.group: gone})
        return OffsetDeleteResult(self.group, top_level, rows, backup), verdict


@dataclass(frozen=True)
class DeleteGroupsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO
    group_patterns: tuple[str, ...] = ()  # --group-pattern
    exclude_groups: tuple[str, ...] = ()  # --exclude-group

    @property
    def selection(self) -> GroupSelection:
        return GroupSelection(self.groups, self.all_groups, self.group_patterns, self.exclude_groups)

    def execute(self, show: Show | None = None) -> CommandOutcome:
        self.selection.check("delete")
        check_backup_dir(self.backup_dir)
        with cluster_session(self.connection, writes=True) as access:
            ids = list(dict.fromkeys(consumer_group_ids(access, self.selection)))
            announce(announce_matches(self.selection, ids, "consumer group"))
            refused: dict[str, KafkaErrorInfo | None] = {}
            current: dict[str, dict[TopicPartition, int]] = {}
            if ids:
                # A group with members is refused by the broker: it is left out before the backup and
                # the announcement, which name exactly the groups sent, and reported as the broker
                # words it. (One that gains a member meanwhile is refused by the broker, and the
                # backup narrowed to what was deleted.)
                found, _missing = access.describe_groups(ids)
                refused = {
                    g: error_info(NON_EMPTY_GROUP)
                    for g in ids
                    if g in found and found[g].state not in ("Empty", "Dead", "Unknown")
                }
                ids = [g for g in ids if g not in refused]
            if ids:
                offsets = access.committed_offsets(ids)
                current = {g: {tp: c.offset for tp, c in offsets.get(g, {}).items()} for g in ids}
            deletion = GroupDeletion(access, self.connection, "kafka-consumer-groups", self.backup_dir)
            answers, backup, verdict = deletion.run(
                ids, current, [g for g in ids if current[g]], _consumer_groups_left
            )
            notes = tuple(deletion.notes)
        result = GroupDeleteResult.of({**refused, **answers}, backup)
        failure = deletion_failure(result.outcome, result.problem(), verdict)
        return CommandOutcome(result, self.output, notices=notes, failure=failure)


def _consumer_groups_left(reader: KafkaAccess, ids: list[str]) -> set[str]:
    found, _missing = reader.describe_groups(ids)
    return set(found)


@dataclass(frozen=True)
class GroupDeletion:
    """``--delete`` of groups, guarded: back up their offsets, announce the undo, delete, and
    when the broker's answer is lost, read back which groups still exist."""

    access: KafkaAccess
    connection: ConnectionArgs
    tool: str
    backup_dir: str | None
    what: str = "of the deleted groups"
    # Notes on what the deletion did, said after the result (filled by run).
    notes: list[str] = field(default_factory=list)

    def run(
        self,
        ids: list[str],
        current: dict[str, dict[TopicPartition, int]],
        expected: list[str],
        left: Callable[[KafkaAccess, list[str]], set[str]],
    ) -> tuple[dict[str, KafkaErrorInfo | None], str | None, Verdict | None]:
        """Delete ``ids`` (``current``: their committed offsets; ``expected``: those the undo
        names). Returns each group's answer, the backup that remains and, when the answer was
        lost and the read-back could not show every group deleted, the verdict to conclude."""
        if not ids:
            return {}, None, None
        name_target(self.access)
        fault_point("before-backup")
        backup = save_backup("delete", current, self.backup_dir)
        fault_point("after-backup")
        if backup:
            announce(self._hint(backup, expected))
        sent = Write(
            self.access,
            send=lambda: self.access.delete_groups(ids),
            read_back=lambda reader: dict.fromkeys(left(reader, ids), True),
            what="deletion",
        ).run()
        verdict = None
        if sent.answer is not None:
            answers = sent.answer
        else:
            units = {
                g: classify(None if sent.state is None else {g: sent.state.get(g)}, {g: True}, {})
                for g in ids
            }
            lost = error_info(REQUEST_TIMED_OUT)
            answers = {g: None if landed is Landed.DONE else lost for g, landed in units.items()}
            if any(landed is not Landed.DONE for landed in units.values()):
                why = f"{sent.send_error}; {sent.read_error}" if sent.read_error else sent.send_error or ""
                undo = self._undo(backup, expected).command() if backup else None
                verdict = Verdict(
                    "deletion",
                    {f"group '{g}'": landed for g, landed in units.items()},
                    {f"group '{g}'": why for g in ids},
                    check_command(ids, self.connection, self.tool),
                    undo,
                )
            else:
                self.notes.append(
                    f'Note: deleting the groups answered "{sent.send_error}", but they are gone: '
                    "the deletion is done."
                )
        if backup and (verdict is None or not verdict.units_in(Landed.UNKNOWN)):
            backup = narrow_backup(backup, {g: current[g] for g, error in answers.items() if error is None})
            deleted = sorted(g for g, error in answers.items() if error is None and current.get(g))
            if backup and deleted != sorted(expected):  # the undo announced does not fit: the one that does
                announce(self._hint(backup, deleted))
        return answers, backup, verdict

    def _undo(self, backup: str, groups: list[str]) -> Undo:
        # A deleted streams group no longer exists, so kafka-streams-groups cannot reset it;
        # kafka-consumer-groups commits the offsets to the group id, and the application
        # takes them over when it next starts.
        folder = backup_folder(self.backup_dir)
        return Undo(self.connection, folder, restore=backup, restore_groups=tuple(groups))

    def _hint(self, backup: str, groups: list[str]) -> list[str]:
        hint = self._undo(backup, groups).hint(self.what)
        if self.tool == "kafka-streams-groups":
            hint.append("(the application resumes from these offsets when it next starts)")
        return hint
