"""``kafka-topics --describe``, ``--create``, ``--alter`` and ``--delete`` as requests."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups import interrupts
from kafka_groups.commands.session import cluster_session
from kafka_groups.errors import CliError, TopicCommandError
from kafka_groups.render import OutputFormat, stdout_line
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs
from kafka_topics.changes import (
    AlterResult,
    CreateResult,
    DeleteResult,
    expansion_groups,
    has_collision_chars,
    new_partition_assignment,
    parse_configs,
    parse_replica_assignment,
)
from kafka_topics.core import INTERNAL_TOPICS, api_timeout, refuse_internal, select_topics
from kafka_topics.describe import (
    ZERO_UUID,
    DescribeFilters,
    TopicDescribeResult,
    apache_topic_order,
    parse_topic_id,
    without_elr,
)

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.commands.guard import Verdict

INVALID_CONFIG = 40  # a --config the Apache tool refuses before anything else
COLLISION_WARNING = (
    "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
    "collide. To avoid issues it is best to use either, but not both."
)


RECORD_CREATION_ENV = "KAFKA_GROUP_TOOLS_RECORD_CREATION"  # "0": do not record creation times


def _record_creation(access: KafkaAccess, created: dict[str, tuple[int, int]]) -> tuple[str, ...]:
    """Record when the partitions were created, for the ``latest`` policy's max age (KIP-1327)
    on brokers that do not report it. The topic change itself has happened either way, so a
    failure here is a warning, not an error. ``created``: topic -> (its first new partition,
    the partition count expected now, 0 when the broker's default decides). Returns the
    warning to print, if any."""
    import os
    import time

    from kafka_groups.access.registry import CreationRegistry

    if not created or os.environ.get(RECORD_CREATION_ENV, "1") == "0":
        return ()
    try:
        layout: dict[str, tuple[int, str]] = {}
        for _ in range(20):  # a new topic reaches every broker's metadata within moments
            layout, _live = access.topic_layout()
            if all(t in layout and layout[t][0] >= total for t, (_, total) in created.items()):
                break
            time.sleep(0.1)
        known = {
            t: (layout[t][1], range(first, layout[t][0])) for t, (first, _) in created.items() if t in layout
        }
        CreationRegistry(access.settings).record_partitions(known)
    except CliError as exc:
        return (
            f"Warning: the creation time of the new partitions was not recorded ({exc}); consumers "
            "using the latest policy with a max age will treat them as of unknown age.",
        )
    return ()


def _matching(names: Iterable[str], topic: str | None, exclude_internal: bool, if_exists: bool) -> list[str]:
    """The topics ``--topic`` matches (sorted); an error when it names some and none exist."""
    matched = select_topics(names, topic, exclude_internal)
    if topic and not matched and not if_exists:
        raise TopicCommandError(f"Topic '{topic}' does not exist as expected")
    return list(matched)


@dataclass(frozen=True)
class DescribeTopicsRequest:
    connection: ConnectionArgs
    topic: str | None = None
    topic_id: str | None = None
    exclude_internal: bool = False
    if_exists: bool = False
    filters: DescribeFilters = field(default_factory=DescribeFilters)
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        with cluster_session(self.connection, api_timeout) as access:
            wanted_id = parse_topic_id(self.topic_id) if self.topic_id is not None else ZERO_UUID
            layout, live = access.topic_layout()
            by_id = wanted_id != ZERO_UUID
            if by_id:
                names = [
                    n
                    for n, (_, tid) in layout.items()
                    if tid == wanted_id and not (self.exclude_internal and n in INTERNAL_TOPICS)
                ]
                if not names and not self.if_exists:
                    raise TopicCommandError(f"TopicId '{self.topic_id}' does not exist as expected")
            else:
                names = _matching(layout, self.topic, self.exclude_internal, self.if_exists)
            states, reassignments = access.describe_topics({n: layout[n][0] for n in names}, live)
        if by_id:  # the Apache tool describes by id through Metadata, which has no ELR
            states = {n: without_elr(t) for n, t in states.items()}
        ordered = [states[n] for n in apache_topic_order(sorted(states))]
        return Outcome(TopicDescribeResult(tuple(ordered), self.filters, live, reassignments), self.output)


@dataclass(frozen=True)
class CreateTopicRequest:
    connection: ConnectionArgs
    topic: str
    partitions: int | None = None
    replication_factor: int | None = None
    replica_assignment: str | None = None
    configs: tuple[str, ...] = ()
    if_not_exists: bool = False
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        assignment = parse_replica_assignment(self.replica_assignment or "")
        configs = parse_configs(self.configs)
        # The Apache tool checks configs before it warns about the name, then the ranges.
        warn = has_collision_chars(self.topic)
        rf = self.replication_factor
        problem = None
        if rf is not None and not 1 <= rf <= 32767:
            problem = "The replication factor must be between 1 and 32767 inclusive"
        elif self.partitions is not None and self.partitions < 1:
            problem = "The partitions must be greater than 0"
        preface = (COLLISION_WARNING,) if warn else ()
        if problem:
            return Outcome(preface=preface, failure=TopicCommandError(problem))
        warnings: tuple[str, ...] = ()
        notes: list[str] = []
        with cluster_session(self.connection, api_timeout, writes=True) as access:
            try:
                created, verdict = self._send(access, assignment, configs, notes)
            except TopicCommandError as exc:
                # The error leaves the session as raised, with the session's secrets on it.
                if warn and exc.kafka_code != INVALID_CONFIG:
                    stdout_line(COLLISION_WARNING)
                raise
            if verdict is not None and (failure := verdict.failure()) is not None:
                return Outcome(preface=preface, failure=failure)  # not created, or not known: exit 1 or 4
            if created and not interrupts.requested():  # once interrupted, nothing more is sent
                count = len(assignment) if assignment else self.partitions
                warnings = _record_creation(access, {self.topic: (0, count or 0)})
        result = CreateResult(self.topic, created)
        return Outcome(result, self.output, warnings, notices=tuple(notes), preface=preface)

    def _send(
        self, access: KafkaAccess, assignment: list[list[int]], configs: dict[str, str], notes: list[str]
    ) -> tuple[bool, Verdict | None]:
        """Create the topic under the write discipline: whether it was created and, when the
        answer was lost and the read-back could not show the topic, the verdict to conclude.
        Whether it exists is read first (the topic names the principal may see, so that no ACL
        beyond the Apache tool's is needed): that proves the cluster reachable before anything
        is sent, and tells a lost answer's read-back what was there before."""
        from kafka_groups.commands.backup import connection_flags
        from kafka_groups.commands.guard import Landed, Verdict, Write, classify, topics_left
        from kafka_groups.commands.target import name_target

        existed = self.topic in access.list_topics()
        if existed and self.if_not_exists:
            return False, None  # as the Apache tool: nothing to do, nothing said
        name_target(access, apache_stderr=True)  # the cluster id from the listing's metadata
        sent = Write(
            access,
            send=lambda: access.create_topic(
                self.topic,
                self.partitions,
                self.replication_factor,
                assignment,
                configs,
                tolerate_exists=self.if_not_exists,
            ),
            read_back=topics_left([self.topic]),
            definite=(TopicCommandError,),
            what="topic creation",
        ).run()
        if sent.send_error is None:
            return bool(sent.answer), None
        unit = f"topic '{self.topic}'"
        read = None if sent.state is None else {self.topic: sent.state.get(self.topic)}
        landed = Landed.NOT_APPLIED if existed else classify(read, {}, {self.topic: True})
        if landed is Landed.DONE:
            notes.append(
                f'Note: creating the topic answered "{sent.send_error}", but it exists: the creation is done.'
            )
            return True, None
        why = "it existed before" if existed else sent.send_error
        if sent.read_error and not existed:
            why = f"{why}; {sent.read_error}"
        check = f"kafka-topics{connection_flags(self.connection)} --describe --topic {self.topic}"
        return False, Verdict("creation", {unit: landed}, {unit: why or ""}, check)


@dataclass(frozen=True)
class AlterTopicRequest:
    connection: ConnectionArgs
    topic: str
    partitions: int
    replica_assignment: str | None = None
    if_exists: bool = False
    dry_run: bool = False  # ours: show the change and the guard, change nothing
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        assignment = parse_replica_assignment(self.replica_assignment or "")
        with cluster_session(self.connection, api_timeout, writes=not self.dry_run) as access:
            # One protocol client for all of it: metadata, CreatePartitions, the groups' offsets.
            layout, _ = access.topic_layout()
            names = _matching(layout, self.topic, False, self.if_exists)
            refuse_internal(names, self.topic, "add partitions to")
            if not names:
                return Outcome(AlterResult((), (), self.dry_run), self.output)
            before = {n: layout[n][0] for n in names}
            changes = {n: new_partition_assignment(assignment, before[n]) for n in names}
            targets = {n: (self.partitions, changes[n]) for n in names}
            # The broker checks the change first (a refusal is its own error line, as the Apache
            # tool prints it); then what is sent is announced, sent, and read back when in doubt.
            access.create_partitions(targets, validate_only=True)
            notes: list[str] = []
            verdict = None if self.dry_run else self._send(access, targets, before, notes)
            if verdict is not None and (failure := verdict.failure()) is not None:
                return Outcome(failure=failure)  # not added, or not known: exit 1 or 4
            warnings: tuple[str, ...] = ()
            if interrupts.requested():  # the partitions are added: nothing more is sent or read
                return Outcome(
                    AlterResult(tuple((n, before[n], self.partitions) for n in names), (), self.dry_run),
                    self.output,
                    (
                        "Warning: interrupted: the partitions were added, but the consumer groups with "
                        "offsets on the topics were not listed and the creation time of the new "
                        "partitions was not recorded.",
                    ),
                    notices=tuple(notes),
                )
            if not self.dry_run:
                warnings = _record_creation(access, {n: (before[n], self.partitions) for n in names})
            try:
                offsets = access.committed_offsets_on(set(names))
                landing = _landing_new_partitions_from_start(access, offsets, set(names))
                recorded = _recorded_policies_from_start(access, set(offsets) - landing)
            except CliError as exc:
                if self.dry_run:
                    raise
                # The partitions are added: a failure to name the groups is not the change's.
                warnings += (
                    f"Warning: the partitions were added, but the consumer groups with offsets on the "
                    f"topics could not be listed ({exc.message}).",
                )
                offsets, landing, recorded = {}, frozenset(), {}
        grown = {n: (before[n], self.partitions) for n in names}
        groups = expansion_groups(offsets, grown, landing, recorded)
        result = AlterResult(
            tuple((n, before[n], self.partitions) for n in names), tuple(groups), self.dry_run
        )
        return Outcome(result, self.output, warnings, notices=(*notes, *result.guard_lines(self.connection)))

    def _send(
        self,
        access: KafkaAccess,
        targets: dict[str, tuple[int, list[list[int]] | None]],
        before: dict[str, int],
        notes: list[str],
    ) -> Verdict | None:
        """Add the partitions; when the answer is lost, count them again. Returns the verdict
        to conclude when a topic did not grow or could not be counted; ``notes`` gets what is
        worth saying about a lost answer whose change landed."""
        from kafka_groups.commands.backup import connection_flags
        from kafka_groups.commands.guard import Landed, Verdict, Write, announce, classify
        from kafka_groups.commands.target import name_target

        grows = ", ".join(f"{n} ({before[n]} -> {self.partitions})" for n in targets)
        name_target(access, apache_stderr=True)
        announce(f"Adding partitions: {grows}")

        def counts(reader: KafkaAccess) -> dict[str, int]:
            reader.forget_metadata()
            layout, _live = reader.topic_layout()
            return {n: layout[n][0] for n in targets if n in layout}

        sent = Write(
            access,
            send=lambda: access.create_partitions(targets),
            read_back=counts,
            definite=(TopicCommandError,),
            what="partition change",
        ).run()
        if sent.send_error is None:
            return None
        wanted = {n: self.partitions for n in targets}
        units = {f"topic '{n}'": classify(sent.state, {n: before[n]}, {n: wanted[n]}) for n in targets}
        if all(landed is Landed.DONE for landed in units.values()):
            notes.append(
                f'Note: adding partitions answered "{sent.send_error}", but the topics have them: '
                "the change is done."
            )
            return None
        why = f"{sent.send_error}; {sent.read_error}" if sent.read_error else sent.send_error
        check = f"kafka-topics{connection_flags(self.connection)} --describe --topic {self.topic}"
        return Verdict("partition change", units, dict.fromkeys(units, why), check)


def _landing_new_partitions_from_start(
    access: KafkaAccess, groups: Iterable[str], topics: set[str]
) -> frozenset[str]:
    """The groups kafka-to-parquet lands whose every commit on ``topics`` records a policy that
    starts new partitions at their beginning (the commit metadata says so)."""
    from kafka_pipeline.plan import starts_new_partitions_at_beginning

    found = set()
    for group in groups:
        held = [m for tp, (_, m) in access.committed_with_metadata(group).items() if tp[0] in topics]
        if held and all(starts_new_partitions_at_beginning(m) for m in held):
            found.add(group)
    return frozenset(found)


def _recorded_policies_from_start(access: KafkaAccess, groups: set[str]) -> dict[str, str]:
    """The groups whose consumer helper (PolicyConsumer) last recorded a policy that starts new
    partitions at their beginning: group -> policy. When the records cannot be read, none is
    taken as safe (the guard then recommends the reset)."""
    if not groups:
        return {}
    from kafka_groups.access.registry import CreationRegistry

    try:
        return CreationRegistry(access.settings).policies_starting_new_partitions_at_beginning(groups)
    except CliError:
        return {}


@dataclass(frozen=True)
class DeleteTopicsRequest:
    connection: ConnectionArgs
    topic: str
    if_exists: bool = False
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        with cluster_session(self.connection, api_timeout, writes=True) as access:
            names = _matching(access.list_topics(), self.topic, False, self.if_exists)
            refuse_internal(names, self.topic, "delete")
            verdict = self._send(access, names) if names else None
        failure = verdict.failure() if verdict is not None else None
        return Outcome(DeleteResult(tuple(names)), self.output, failure=failure)

    def _send(self, access: KafkaAccess, names: list[str]) -> Verdict | None:
        """Delete the topics; when the answer is lost, list them again. Returns the verdict to
        conclude when a topic is still there or the listing failed."""
        from kafka_groups.commands.backup import connection_flags
        from kafka_groups.commands.guard import Landed, Verdict, Write, announce, classify, topics_left
        from kafka_groups.commands.target import name_target

        name_target(access, apache_stderr=True)
        announce(f"Deleting topics: {', '.join(names)}")
        sent = Write(
            access,
            send=lambda: access.delete_topics(names),
            read_back=topics_left(names),
            definite=(TopicCommandError,),
            what="deletion",
        ).run()
        if sent.send_error is None:
            return None
        units = {
            f"topic '{n}'": classify(None if sent.state is None else {n: sent.state.get(n)}, {n: True}, {})
            for n in names
        }
        if all(landed is Landed.DONE for landed in units.values()):
            return None
        why = f"{sent.send_error}; {sent.read_error}" if sent.read_error else sent.send_error
        check = f"kafka-topics{connection_flags(self.connection)} --list"
        return Verdict("deletion", units, dict.fromkeys(units, why), check)
