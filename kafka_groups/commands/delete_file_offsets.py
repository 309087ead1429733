"""``--delete-offsets --from-file FILE`` (ours): delete the committed offsets of the partitions a
plan file names, for every group it names (or the ``--group``s given), one OffsetDelete per
group. It is the part of a reset's undo that removes the offsets the reset created (partitions
that had none before), whatever the number of groups: the reset saved them in such a file.

The write discipline is that of every deletion (``commands/guard.py``): the offsets about to go
are backed up and the undo announced before anything is sent; a group whose answer is lost is
read back. After a lost answer the remaining groups are not sent (each would wait out the
timeout too): they are named as not deleted. A group with more offsets than one batch of
``__consumer_offsets`` holds is deleted in parts (``commands/delete_parts.py``), each part's
partitions reported as that part answered, or as read back after a lost answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import Undo, backup_folder, check_command, narrow_backup, save_backup
from kafka_groups.commands.delete_groups import REQUEST_TIMED_OUT
from kafka_groups.commands.delete_parts import Limit, PartsDeleted, delete_in_parts, offset_parts
from kafka_groups.commands.guard import Landed, Verdict, Write, announce, classify, fault_point
from kafka_groups.commands.session import cluster_session
from kafka_groups.commands.target import name_target
from kafka_groups.core.delete import OffsetDeleteBatch, OffsetDeleteResult, Outcome, first_partition_error
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.kafka_errors import KafkaErrorInfo, error_info
from kafka_groups.core.plan_file import read_plan
from kafka_groups.core.selectors import check_backup_dir, check_groups
from kafka_groups.errors import CliError, PartialFailure, UnsupportedByBroker
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome as CommandOutcome
from kafka_groups.render.outcome import Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

# One group's answer: the broker's (group-level error, per-partition errors), what the parts of
# a deletion in parts answered, or why none came.
Answer = tuple[KafkaErrorInfo | None, dict[TopicPartition, KafkaErrorInfo | None]] | PartsDeleted | str
Held = dict[str, dict[TopicPartition, int]]


@dataclass(frozen=True)
class DeleteFileOffsetsRequest:
    connection: ConnectionArgs
    path: str
    groups: tuple[str, ...] = ()  # --group: only these groups of the file
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> CommandOutcome:
        check_groups(self.groups)
        check_backup_dir(self.backup_dir)
        named = read_plan(self.path, self.groups)  # a damaged file: exit 2, nothing contacted
        notes: list[str] = []
        with cluster_session(self.connection, writes=True) as access:
            from kafka_groups.core.capabilities import OFFSET_DELETE, offset_delete_refusal

            if not access.supports(OFFSET_DELETE):  # before anything is read, backed up or announced
                raise UnsupportedByBroker(offset_delete_refusal())
            batch, verdict = self._delete(access, named, notes)
        failure: CliError | None = verdict.failure() if verdict is not None else None
        problem = batch.problem()
        if failure is None and problem is not None:
            failure = PartialFailure(problem) if batch.outcome is Outcome.PARTIAL else CliError(problem)
        return CommandOutcome(batch, self.output, notices=tuple(notes), failure=failure)

    def _delete(
        self, access: KafkaAccess, named: Mapping[str, Mapping[TopicPartition, int]], notes: list[str]
    ) -> tuple[OffsetDeleteBatch, Verdict | None]:
        ids = list(named)
        held = access.committed_offsets(ids)
        about_to_go = {g: {tp: c.offset for tp, c in held.get(g, {}).items() if tp in named[g]} for g in ids}
        name_target(access)
        fault_point("before-backup")
        backup = save_backup("delete-offsets", about_to_go, self.backup_dir)
        fault_point("after-backup")
        way_back = Undo(
            self.connection,
            backup_folder(self.backup_dir),
            restore=backup,
            restore_groups=tuple(g for g in ids if about_to_go[g]),
        )
        announce(way_back.hint("this deletion removed"))

        limit = Limit(access)
        parts = {g: offset_parts(limit, g, list(named[g])) for g in ids}

        def send() -> dict[str, Answer]:
            answers: dict[str, Answer] = {}
            for group in ids:
                if len(parts[group]) > 1:  # more tombstones than one batch holds
                    done = answers[group] = delete_in_parts(access, group, parts[group])
                    if done.doubtful:
                        break  # a part was not answered: the other groups are not sent
                    continue
                try:
                    answers[group] = access.delete_offsets(group, list(named[group]))
                except CliError as exc:
                    answers[group] = exc.message
                    break  # the broker did not answer: the other groups are not sent
            return answers

        def read(reader: KafkaAccess) -> Held:
            now = reader.committed_offsets(ids)
            return {g: {tp: c.offset for tp, c in now.get(g, {}).items() if tp in named[g]} for g in ids}

        sent = Write(
            access,
            send=send,
            read_back=read,
            in_doubt=lambda answers: any(
                isinstance(a, str) or (isinstance(a, PartsDeleted) and a.doubtful) for a in answers.values()
            ),
            what="offset deletion",
        ).run()
        answers = sent.answer or {}
        results: list[OffsetDeleteResult] = []
        unknown: dict[str, str] = {}
        gone: Held = {}
        for group in ids:
            answer = answers.get(group)
            if answer is None:
                continue  # not sent
            partitions = list(named[group])
            if isinstance(answer, PartsDeleted):
                state = None if sent.state is None else sent.state.get(group, {})
                rows = _rows_of_parts(answer, state)
                if rows is None:  # a part in doubt, and nothing read back
                    why = answer.error or "no answer"
                    unknown[group] = f"{why}; {sent.read_error}" if sent.read_error else why
                    rows = dict.fromkeys(partitions, error_info(REQUEST_TIMED_OUT))
                notes.append(
                    f"Note: the offsets of group {group!r} were deleted in {answer.parts} requests, more "
                    "than one batch of __consumer_offsets holds"
                    + ("." if answer.complete else f"; {answer.stopped_at()}.")
                )
                top_level = answer.top or first_partition_error(rows)
            elif isinstance(answer, str):
                state = None if sent.state is None else sent.state.get(group, {})
                landed = classify(state, about_to_go[group], {})
                if landed is Landed.UNKNOWN:
                    unknown[group] = f"{answer}; {sent.read_error}" if sent.read_error else answer
                if landed is Landed.DONE:
                    notes.append(
                        f'Note: deleting the offsets of group {group!r} answered "{answer}", but reading '
                        "them back shows them gone: the deletion is done."
                    )
                error = None if landed is Landed.DONE else error_info(REQUEST_TIMED_OUT)
                top_level, rows = error, dict.fromkeys(partitions, error)
            else:
                group_error, rows = answer
                top_level = group_error or first_partition_error(rows)
            results.append(OffsetDeleteResult(group, top_level, rows))
            gone[group] = {tp: o for tp, o in about_to_go[group].items() if rows.get(tp, True) is None}
        verdict = None
        if unknown:
            done = [r.group for r in results if r.outcome is Outcome.DONE]
            verdict = Verdict(
                "offset deletion",
                {f"group '{g}'": Landed.DONE for g in done}
                | {f"group '{g}'": Landed.UNKNOWN for g in unknown},
                {f"group '{g}'": why for g, why in unknown.items()},
                check_command(list(unknown), self.connection),
                way_back.command(),
            )
        elif backup:  # the backup keeps only what was deleted
            backup = narrow_backup(backup, gone)
        unsent = tuple(g for g in ids if g not in answers)
        return OffsetDeleteBatch(tuple(results), backup, unsent), verdict


def _rows_of_parts(
    done: PartsDeleted, state: dict[TopicPartition, int] | None
) -> dict[TopicPartition, KafkaErrorInfo | None] | None:
    """Each partition's row after a deletion in parts: what its part answered; for the part
    whose answer was lost, what the read-back shows (None when it could not be read); the
    parts after a failed one, not deleted."""
    lost = error_info(REQUEST_TIMED_OUT)
    rows = dict(done.answers)
    for tp in done.unsent:
        rows.setdefault(tp, done.top or lost)
    if done.doubtful:
        if state is None:
            return None
        rows.update({tp: lost if tp in state else None for tp in done.doubtful})
    return rows
