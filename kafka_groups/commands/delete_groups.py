"""``--delete-offsets`` (KIP-496) and ``--delete``.

Both act at once, as the Apache tool does (no ``--execute``), and both save the committed
offsets they remove to a backup file first, so ``--reset-offsets --from-file`` can put them back.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import Undo, backup_folder, check_command, narrow_backup, save_backup
from kafka_groups.commands.delete_parts import (
    Limit,
    PartsDeleted,
    delete_in_parts,
    group_fits,
    offset_parts,
)
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

        parts = offset_parts(Limit(access), self.group, chosen)
        if len(parts) > 1:  # more tombstones than one batch holds
            return self._delete_parts(access, parts, read, rows, about_to_go, backup, notes, tool, way_back)
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

    def _delete_parts(
        self,
        access: KafkaAccess,
        parts: list[list[TopicPartition]],
        read: Callable[[KafkaAccess], dict[TopicPartition, int]],
        rows: dict[TopicPartition, KafkaErrorInfo | None],
        about_to_go: dict[TopicPartition, int],
        backup: str | None,
        notes: list[str],
        tool: str,
        way_back: Undo,
    ) -> tuple[OffsetDeleteResult, Verdict | None]:
        """The deletion in several OffsetDeletes (delete_parts.py): each partition's row is what
        its part answered, or, for the part whose answer was lost, what the read-back shows."""
        sent = Write(
            access,
            send=lambda: delete_in_parts(access, self.group, parts),
            read_back=read,
            in_doubt=lambda answer: bool(answer.doubtful),
            what="offset deletion",
        ).run()
        # delete_in_parts answers every part, lost answers included; no answer at all: the wait
        # for it was interrupted (a second interrupt), every part in doubt.
        done = sent.answer or _abandoned(parts, sent.send_error)
        answers = dict(done.answers)
        lost = error_info(REQUEST_TIMED_OUT)  # how the rows show a partition that did not change
        for tp in done.unsent:
            answers.setdefault(tp, done.top or lost)
        verdict = None
        if done.doubtful and sent.state is None:  # in doubt, and nothing could be read back
            answers.update(dict.fromkeys(done.doubtful, lost))
            undo = way_back.command()
            why = f"{done.error}; {sent.read_error}" if sent.read_error else done.error or ""
            verdict = Verdict(
                "offset deletion",
                {f"group '{self.group}'": Landed.UNKNOWN},
                {f"group '{self.group}'": why},
                check_command([self.group], self.connection, tool),
                undo,
            )
        elif done.doubtful:
            state = sent.state or {}
            answers.update({tp: lost if tp in state else None for tp in done.doubtful})
        notes.append(
            f"Note: the offsets were deleted in {len(parts)} requests, more than one batch of "
            "__consumer_offsets holds"
            + ("." if done.complete else f"; {done.stopped_at()}, and the requests after it were not sent.")
        )
        rows.update(answers)
        top_level = done.top or first_partition_error(answers)
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


def _abandoned(parts: list[list[TopicPartition]], why: str | None) -> PartsDeleted:
    """A deletion in parts whose answer the user stopped waiting for: every part in doubt."""
    return PartsDeleted(
        doubtful=[tp for part in parts for tp in part], error=why or "no answer", parts=len(parts)
    )


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
        # Groups with more offsets than one batch of tombstones holds lose them first, in parts.
        stopped, gone, unsure = self._offsets_first(ids, current, expected)
        rest = [g for g in ids if g not in stopped and g not in unsure]
        sent = Write(
            self.access,
            send=lambda: self.access.delete_groups(rest) if rest else {},
            read_back=lambda reader: dict.fromkeys(left(reader, rest), True),
            what="deletion",
        ).run()
        verdict = None
        if sent.answer is not None:
            answers = {**stopped, **dict.fromkeys(unsure, error_info(REQUEST_TIMED_OUT)), **sent.answer}
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
        if unsure:  # a part of a group's offset deletion was not answered nor read back
            lost = error_info(REQUEST_TIMED_OUT)
            answers = {**answers, **dict.fromkeys(unsure, lost)}
            units = {**(verdict.units if verdict else {}), **{f"group '{g}'": Landed.UNKNOWN for g in unsure}}
            reasons = {
                **(verdict.reasons if verdict else {}),
                **{f"group '{g}'": w for g, w in unsure.items()},
            }
            undo = self._undo(backup, expected).command() if backup else None
            verdict = Verdict(
                "deletion", units, reasons, check_command(ids, self.connection, self.tool), undo
            )
        if backup and (verdict is None or not verdict.units_in(Landed.UNKNOWN)):
            kept = {g: current[g] for g, error in answers.items() if error is None}
            backup = narrow_backup(backup, {**gone, **kept})
            deleted = sorted(g for g, error in answers.items() if error is None and current.get(g))
            if backup and deleted != sorted(expected):  # the undo announced does not fit: the one that does
                announce(self._hint(backup, deleted))
        return answers, backup, verdict

    def _offsets_first(
        self, ids: list[str], current: dict[str, dict[TopicPartition, int]], expected: list[str]
    ) -> tuple[dict[str, KafkaErrorInfo | None], dict[str, dict[TopicPartition, int]], dict[str, str]]:
        """Delete, in parts, the offsets of each group that DeleteGroups could not remove in one
        batch (delete_parts.py); those groups then go to DeleteGroups with no offsets left.
        Returns the groups whose offset deletion stopped (their error: they are not deleted),
        the offsets those lost before it stopped, and the groups where it is not known."""
        limit = Limit(self.access)
        stopped: dict[str, KafkaErrorInfo | None] = {}
        gone: dict[str, dict[TopicPartition, int]] = {}
        unsure: dict[str, str] = {}
        for group in ids:
            held = current.get(group, {})
            if group not in expected or not held or group_fits(limit, group, list(held)):
                continue
            parts = offset_parts(limit, group, list(held))

            def read(reader: KafkaAccess, group: str = group) -> dict[TopicPartition, int]:
                return {tp: c.offset for tp, c in reader.committed_offsets([group]).get(group, {}).items()}

            sent = Write(
                self.access,
                send=functools.partial(delete_in_parts, self.access, group, parts),
                read_back=read,
                in_doubt=lambda answer: bool(answer.doubtful),
                what="deletion",
            ).run()
            done = sent.answer or _abandoned(parts, sent.send_error)
            if done.complete and not any(done.answers.values()):
                continue
            if done.doubtful and sent.state is None:
                unsure[group] = (
                    f"deleting its offsets in {len(parts)} parts: {done.stopped_at()}; {sent.read_error}"
                )
                continue
            state = sent.state or {}
            deleted = {tp for tp, error in done.answers.items() if error is None}
            deleted |= {tp for tp in done.doubtful if tp not in state}
            gone[group] = {tp: o for tp, o in held.items() if tp in deleted}
            first = next((e for e in done.answers.values() if e is not None), None)
            stopped[group] = first or done.top or error_info(REQUEST_TIMED_OUT)
            self.notes.append(
                f"Note: group '{group}' was not deleted: its {len(held):,} offsets, more than one batch of "
                f"__consumer_offsets holds, are deleted first in {len(parts)} requests, and "
                f"{done.stopped_at()}; {len(gone[group]):,} of them were deleted (the backup restores them)."
            )
        return stopped, gone, unsure

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
