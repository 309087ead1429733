"""``kafka-streams-groups --delete``: delete Empty streams groups (and, when asked, their
internal topics), keeping a backup of their committed offsets as the consumer-groups tool does."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import connection_flags
from kafka_groups.commands.delete_groups import GroupDeletion, deletion_failure
from kafka_groups.commands.guard import Landed, Verdict, announce, delete_topics
from kafka_groups.commands.session import cluster_session
from kafka_groups.core.delete import GroupDeleteResult
from kafka_groups.core.group_select import GroupSelection, announce_matches
from kafka_groups.core.groups import select_streams_groups
from kafka_groups.core.javaorder import string_keys_order
from kafka_groups.core.kafka_errors import KafkaErrorInfo
from kafka_groups.core.selectors import check_backup_dir
from kafka_groups.core.streams import internal_topics
from kafka_groups.errors import CliError
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


def precheck_error(group: str, state: str | None) -> KafkaErrorInfo | None:
    """Why the Apache tool refuses to delete a group before asking the broker, if it does."""
    if state is None:
        return KafkaErrorInfo(
            69,
            "GROUP_ID_NOT_FOUND",
            "java.lang.IllegalArgumentException",
            f"Group '{group}' does not exist or is not a streams group.",
        )
    if state == "Dead":
        return KafkaErrorInfo(
            69,
            "GROUP_ID_NOT_FOUND",
            "java.lang.IllegalStateException",
            f"Streams group '{group}' group state is DEAD.",
        )
    if state != "Empty":
        return KafkaErrorInfo(
            68, "NON_EMPTY_GROUP", "GroupNotEmptyException", f"Streams group '{group}' is not EMPTY."
        )
    return None


@dataclass(frozen=True)
class DeleteStreamsGroupsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    delete_all_internal_topics: bool = False
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO
    group_patterns: tuple[str, ...] = ()  # --group-pattern
    exclude_groups: tuple[str, ...] = ()  # --exclude-group

    @property
    def selection(self) -> GroupSelection:
        return GroupSelection(self.groups, self.all_groups, self.group_patterns, self.exclude_groups)

    def execute(self, show: Show | None = None) -> Outcome:
        self.selection.check("delete")
        check_backup_dir(self.backup_dir)
        with cluster_session(self.connection, writes=True) as access:
            warnings: list[str] = []
            notes: list[str] = []
            result, verdict = self._delete(access, show, warnings, notes)
        failure = verdict.failure() if verdict is not None else None
        if failure is None and result.internal_failed and not result.failed:
            group, error = result.internal_failed[0]
            failure = CliError(f"the internal topics of streams group '{group}' were not deleted: {error}")
        failure = failure or deletion_failure(result.outcome, result.problem(), None)
        return Outcome(result, self.output, tuple(warnings), notices=tuple(notes), failure=failure)

    def _delete(
        self, access: KafkaAccess, show: Show | None, warnings: list[str], notes: list[str]
    ) -> tuple[GroupDeleteResult, Verdict | None]:
        """Delete the groups (and their chosen internal topics). What must be said before the
        deletion is shown through ``show``, or left in ``warnings`` when there is none; what
        is noted about the deletion goes to ``notes``."""
        streams = select_streams_groups(access.list_groups(frozenset({"Streams"})), frozenset())
        listed = {g.group_id: g.state for g in streams}
        ids = list(dict.fromkeys(self.selection.pick(listed)))
        self.selection.require_some(ids, "streams group")
        announce(announce_matches(self.selection, ids, "streams group"))
        answers: dict[str, KafkaErrorInfo | None] = {}
        for group in ids:
            refused = precheck_error(group, listed.get(group))
            if refused is not None:
                answers[group] = refused
        todo = [g for g in ids if g not in answers]
        topics: dict[str, tuple[str, ...]] = {}
        if self.delete_all_internal_topics and todo:
            described, _missing = access.describe_streams_groups(todo)
            for group in todo:
                if group not in described:
                    continue
                found = internal_topics(described[group])
                for topic in found.not_inferred:
                    warnings.append(
                        f"Warning: the internal topic '{topic}' is not named after the group '{group}' "
                        "and is not deleted with it."
                    )
                if found.deletable:
                    topics[group] = found.deletable
            if show is not None and warnings:
                show(Outcome(warnings=tuple(warnings)))
                warnings.clear()
        current: dict[str, dict[tuple[str, int], int]] = {}
        if todo:
            offsets = access.committed_offsets(todo)
            current = {g: {tp: c.offset for tp, c in offsets.get(g, {}).items()} for g in todo}
        deletion = GroupDeletion(access, self.connection, "kafka-streams-groups", self.backup_dir)
        sent, backup, verdict = deletion.run(
            todo, current, [g for g in todo if current[g]], _streams_groups_left
        )
        notes.extend(deletion.notes)
        answers.update(sent)
        result = GroupDeleteResult.of(answers, backup, kind="streams")
        if not self.delete_all_internal_topics or not topics:
            return result, verdict
        failed: list[tuple[str, str]] = []
        unsure: dict[str, str] = {}
        for group in string_keys_order(g for g in result.deleted if g in topics):
            try:
                landed, why = delete_topics(access, topics[group])
            except CliError as exc:
                failed.append((group, exc.message))
                continue
            if landed is Landed.NOT_APPLIED:
                failed.append((group, why))
            elif landed is Landed.UNKNOWN:
                unsure[group] = why
        if unsure:
            check = f"kafka-topics{connection_flags(self.connection)} --list"
            verdict = Verdict(
                "deletion",
                {
                    **(verdict.units if verdict else {}),
                    **{f"internal topics of '{g}'": Landed.UNKNOWN for g in unsure},
                },
                {
                    **(verdict.reasons if verdict else {}),
                    **{f"internal topics of '{g}'": w for g, w in unsure.items()},
                },
                verdict.check if verdict else check,
                verdict.undo if verdict else None,
            )
        with_topics = tuple(g for g in result.deleted if g in topics and g not in unsure)
        return replace(result, internal_deleted=with_topics, internal_failed=tuple(failed)), verdict


def _streams_groups_left(reader: KafkaAccess, ids: list[str]) -> set[str]:
    found, _missing = reader.describe_streams_groups(ids)
    return set(found)
