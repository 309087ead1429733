"""``--reset-offsets``: plan for every inactive group, print the plan, and with
``--execute`` back up the current offsets, commit the plan and read it back."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from kafka_groups.apache_argv import parse_long
from kafka_groups.commands.backup import check_command, save_backup, undo_command, undo_hint
from kafka_groups.commands.guard import (
    MOVED_NAMED,
    Landed,
    Verdict,
    Write,
    announce,
    classify,
    delete_topics,
    fault_point,
    moved,
    name_some,
)
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.kafka_errors import UNKNOWN_TOPIC_OR_PARTITION
from kafka_groups.core.reset import (
    ALLOWED_STATES,
    BY_TIME,
    GroupPlan,
    PartitionOffsets,
    ResetSpec,
    Scenario,
    by_duration_timestamp,
    few,
    order_groups,
    parse_datetime,
    parse_topic_arg,
    plan_group,
    read_plan,
)
from kafka_groups.core.streams import StreamsGroup
from kafka_groups.errors import (
    CliError,
    ClusterError,
    NotFoundError,
    PartialFailure,
    TopicCommandError,
    UsageError,
)
from kafka_groups.escape import escape_controls
from kafka_groups.render import OutputFormat, emit, resolve_format, wants_detail
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess

# Scenarios that read the committed offsets.
NEEDS_COMMITTED = frozenset({Scenario.SHIFT_BY, Scenario.TO_CURRENT, Scenario.TO_NEAREST})
# Scenarios that read log start offsets (to plan or to clamp).
NEEDS_START = frozenset(
    {Scenario.TO_EARLIEST, Scenario.TO_OFFSET, Scenario.SHIFT_BY, Scenario.FROM_FILE, Scenario.TO_NEAREST}
)
NO_EXECUTE_WARNING = (
    "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
    "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
    "explicitly if you are scripting this command and want to keep the current default behavior without "
    "prompting."
)


@dataclass(frozen=True)
class GroupFacts:
    """What a reset needs to know about a group before planning."""

    state: str
    creation_time_ms: int | None = None  # KIP-1282
    streams_group: StreamsGroup | None = None  # kafka-streams-groups: its topology


@dataclass(frozen=True)
class ResetResult:
    plans: tuple[GroupPlan, ...]  # groups that were planned, in the Apache order
    refused: tuple[tuple[str, str], ...]  # (group, state) of active groups
    current: dict[str, dict[TopicPartition, int]]  # committed offsets before the reset
    ends: dict[TopicPartition, int]
    starts: dict[TopicPartition, int]
    export: bool = False
    single_group: bool = False
    executed: bool = False
    backup: str | None = None
    failed: tuple[tuple[str, str], ...] = ()  # (group, what did not take)
    outside: tuple[str, ...] = ()  # streams: groups whose named --input-topic is not theirs
    streams: bool = False  # kafka-streams-groups: its layout, and its errors on stdout
    messages: tuple[str, ...] = ()  # streams: the Apache "Error: ..." lines, in order
    # streams, with --execute: the internal topics to delete after each group's reset
    internal_topics: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False)
    verdict: Verdict | None = field(default=None, compare=False)  # with --execute: what landed


@dataclass(frozen=True)
class ResetOffsetsRequest:
    connection: ConnectionArgs
    groups: tuple[str, ...] = ()
    all_groups: bool = False
    topics: tuple[str, ...] = ()
    all_topics: bool = False
    scenarios: tuple[tuple[Scenario, str | None], ...] = ()  # every scenario flag given, with its value
    dry_run: bool = False
    execute_changes: bool = False  # --execute
    export: bool = False
    backup_dir: str | None = None
    output: OutputFormat = OutputFormat.AUTO
    warn_no_execute: bool = field(default=True, compare=False)
    streams: bool = False  # kafka-streams-groups: streams groups, --input-topic / --all-input-topics
    delete_internal_topics: tuple[str, ...] = ()  # streams, with --execute
    delete_all_internal_topics: bool = False  # streams, with --execute

    # -- validation, before anything is contacted ----------------------------------------
    def spec(self) -> ResetSpec:
        if self.dry_run and self.execute_changes:
            raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        if not self.groups and not self.all_groups:
            raise UsageError("Option [reset-offsets] takes one of these options: [all-groups], [group]")
        if self.groups and self.all_groups:
            raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
        if len(self.scenarios) > 1:
            first, second = self.scenarios[0][0].value, self.scenarios[1][0].value
            raise UsageError(f'Option "[{first}]" can\'t be used with option "[{second}]"')
        if not self.scenarios:
            names = ", ".join(f"[{s.value}]" for s in Scenario)
            raise UsageError(f"Option '[reset-offsets]' requires one of the following scenarios: [{names}]")
        scenario, value = self.scenarios[0]
        if scenario is not Scenario.FROM_FILE and not (self.all_topics or self.topics):
            raise UsageError("One of the reset scopes should be defined: --all-topics, --topic.")
        for arg in self.topics:
            parse_topic_arg(arg)
        if scenario is Scenario.TO_OFFSET:
            return ResetSpec(scenario, offset=parse_long(value, "to-offset"))
        if scenario is Scenario.SHIFT_BY:
            return ResetSpec(scenario, shift=parse_long(value, "shift-by"))
        if scenario is Scenario.TO_DATETIME:
            return ResetSpec(scenario, timestamp_ms=parse_datetime(value or ""))
        if scenario is Scenario.BY_DURATION:
            now_ms = time.time_ns() // 10**6
            return ResetSpec(scenario, timestamp_ms=by_duration_timestamp(value or "", now_ms))
        if scenario is Scenario.FROM_FILE:
            skipped: dict[str, int] = {}
            plan = read_plan(value or "", self.groups, skipped=skipped)
            return ResetSpec(scenario, plan=plan, skipped_rows=skipped)
        return ResetSpec(scenario)

    # -- the work --------------------------------------------------------------------------
    def execute(self) -> None:
        spec = self.spec()
        if self.warn_no_execute and not self.dry_run and not self.execute_changes:
            print(NO_EXECUTE_WARNING, file=sys.stderr)
        if spec.skipped_rows:
            rows = sum(spec.skipped_rows.values())
            others = few([f"'{g}'" for g in spec.skipped_rows])
            notice = (
                f"Notice: --from-file skipped {rows:,} row(s) of groups that are not being reset ({others})"
            )
            print(escape_controls(notice), file=sys.stderr)
        settings = self.connection.resolve()
        from kafka_groups.access.cluster import KafkaAccess

        access = KafkaAccess(settings)
        shown = False
        try:
            from kafka_groups.render.progress import working

            # Many groups or whole topics take a while to plan: a spinner on a terminal only.
            with working("Planning the reset…", enabled=self.all_groups or len(self.groups) > 1):
                result = self._plan(access, spec)
            if self.execute_changes and result.plans:
                # The plan first, as the Apache tool prints it, then the backup and the undo, then
                # the commit. Streams and the richer formats show what the commit did: printed after.
                if not self.streams and resolve_format(self.output, sys.stdout) is OutputFormat.TEXT:
                    emit(result, self.output)
                    shown = True
                result = self._apply(access, result)
        finally:
            access.close()
        if not shown:
            emit(result, self.output)
        self._report(result)

    def _groups(self, access: KafkaAccess, spec: ResetSpec) -> tuple[list[str], dict[str, GroupFacts]]:
        """The groups to reset and what the planner needs to know about each."""
        detailed = spec.scenario is Scenario.TO_START_TIME
        if self.streams:
            ids = access.streams_group_ids() if self.all_groups else list(dict.fromkeys(self.groups))
            described, missing = access.describe_streams_groups(ids)
            if missing:
                # Committing offsets for a group no broker knows as a streams group would
                # make a group of another kind: refused before anything is written.
                raise NotFoundError("; ".join(missing[g] for g in ids if g in missing))
            return ids, {g: GroupFacts(d.state, d.creation_time_ms, d) for g, d in described.items()}
        ids = access.consumer_group_ids() if self.all_groups else list(dict.fromkeys(self.groups))
        # KIP-1282: the broker's creation times where it has them (else the recorded starts).
        detailed = detailed and access.supports_group_creation_time()
        found, _missing = access.describe_groups(ids, detailed=detailed)
        # A group that does not exist is Dead, which may be reset (it is created).
        return ids, {g: GroupFacts(d.state, d.creation_time_ms) for g, d in found.items()}

    def _plan(self, access: KafkaAccess, spec: ResetSpec) -> ResetResult:
        ids, found = self._groups(access, spec)
        refused = tuple(
            (g, found[g].state) for g in ids if g in found and found[g].state not in ALLOWED_STATES
        )
        allowed = [g for g in ids if g not in dict(refused)]
        if spec.plan is not None:
            unknown = sorted(set(spec.plan) - set(ids))
            if unknown:
                raise UsageError(f"--from-file names group '{unknown[0]}', which is not being reset")

        from kafka_groups.access.cluster import PROTOCOL_LAYER_THRESHOLD

        # Committed offsets serve the all-topics scope, shift/current/nearest, backups and the
        # richer outputs; a plain dry run of the other scenarios does without them.
        rich = wants_detail(self.output)
        wanted = self.all_topics or self.execute_changes or rich or spec.scenario in NEEDS_COMMITTED
        wanted = wanted or (self.streams and bool(self.topics))  # the topics must be the group's
        committed: dict[str, dict[TopicPartition, int]] = {}
        if self.all_topics:  # the scope is the committed offsets: size unknown until read
            committed = self._committed(access, allowed, access.partition_count() > PROTOCOL_LAYER_THRESHOLD)
        scopes = self._scopes(access, spec, allowed, committed, found)
        every = {tp for scope in scopes.values() for tp in scope}
        if wanted and not self.all_topics:
            committed = self._committed(access, allowed, len(every) > PROTOCOL_LAYER_THRESHOLD)
        self._check_partitions(access, every)
        internal = self._internal_topics(found, allowed) if self.execute_changes else {}
        messages: list[str] = []
        if self.streams:
            messages += [
                f"Assignments can only be reset if the group '{g}' is inactive, but the current state is {s}."
                for g, s in refused
            ]
        outside = []
        if self.streams and self.topics:
            for group in allowed:
                if any(tp not in committed.get(group, {}) for tp in scopes[group]):
                    messages.append(f"One or more topics are not part of the group '{group}'.")
                    scopes[group] = []
                    outside.append(group)
            every = {tp for scope in scopes.values() for tp in scope}
        # Only the offsets the scenario (or a richer output) needs: thousands of partitions
        # make every ListOffsets round count.
        ends_raw, starts_raw = access.log_offsets(
            every,
            earliest=rich or spec.scenario in NEEDS_START,
            latest=rich or spec.scenario is not Scenario.TO_EARLIEST,
        )
        ends = {tp: o for tp, o in ends_raw.items() if o is not None}
        starts = {tp: o for tp, o in starts_raw.items() if o is not None}
        # One ListOffsets-by-time per distinct timestamp (every group shares --to-datetime's),
        # over all the partitions of the groups that use it.
        stamps: dict[str, int] = {}
        if spec.scenario is Scenario.TO_START_TIME:
            stamps = self._start_times(access, allowed, found)
        elif spec.scenario in BY_TIME:
            assert spec.timestamp_ms is not None
            stamps = dict.fromkeys(allowed, spec.timestamp_ms)
        lookups = {
            stamp: access.offsets_for_time(
                {tp for g in allowed if stamps[g] == stamp for tp in scopes[g]}, stamp
            )
            for stamp in set(stamps.values())
        }
        plans = []
        for group in allowed:
            by_time = lookups[stamps[group]] if group in stamps else {}
            group_spec = ResetSpec(spec.scenario, timestamp_ms=stamps[group]) if group in stamps else spec
            data = PartitionOffsets(committed.get(group, {}), starts, ends, by_time)
            plans.append(plan_group(group, group_spec, scopes[group], data))
        current = {g: dict(committed.get(g, {})) for g in allowed}
        return ResetResult(
            plans=tuple(order_groups(plans)),
            refused=refused,
            current=current,
            ends=ends,
            starts=starts,
            export=self.export,
            single_group=len(self.groups) == 1,
            streams=self.streams,
            messages=tuple(messages),
            outside=tuple(outside),
            internal_topics=internal,
        )

    def _start_times(
        self, access: KafkaAccess, groups: list[str], found: dict[str, GroupFacts]
    ) -> dict[str, int]:
        """--to-start-time: each group's start, the broker's creation time or else the start our
        consumer helper or pipeline recorded; one stderr line names the source."""
        from kafka_groups.access.policy_io import group_starts
        from kafka_groups.core.start_time import source_notice, start_time_refusal

        broker = {g: found[g].creation_time_ms if g in found else None for g in groups}
        starts = group_starts(access.settings, groups, broker)
        lacking = [g for g in groups if g not in starts]
        if lacking:
            if self.streams:  # StreamsGroupDescribe v0 has no creation time at all
                supported = all(f.creation_time_ms is not None for f in found.values())
            else:
                supported = access.supports_group_creation_time()
            raise start_time_refusal(lacking[0], supported)
        if starts:
            print(escape_controls(source_notice(starts)), file=sys.stderr)
        return {g: s.time_ms for g, s in starts.items()}

    @staticmethod
    def _committed(
        access: KafkaAccess, groups: list[str], many: bool
    ) -> dict[str, dict[TopicPartition, int]]:
        fetched = access.committed_offsets(groups, many=many)
        return {g: {tp: c.offset for tp, c in offsets.items()} for g, offsets in fetched.items()}

    def _scopes(
        self,
        access: KafkaAccess,
        spec: ResetSpec,
        groups: list[str],
        committed: dict[str, dict[TopicPartition, int]],
        found: dict[str, GroupFacts],
    ) -> dict[str, list[TopicPartition]]:
        if spec.scenario is Scenario.FROM_FILE:
            plan = spec.plan or {}
            return {g: list(plan.get(g, {})) for g in groups}
        if self.all_topics and self.streams:  # the committed partitions of the source topics
            return {g: self._source_partitions(found[g], committed.get(g, {})) for g in groups}
        if self.all_topics:
            return {g: list(committed.get(g, {})) for g in groups}
        explicit: list[TopicPartition] = []
        whole: list[str] = []
        for arg in self.topics:
            topic, partitions = parse_topic_arg(arg)
            if partitions is None:
                whole.append(topic)
            else:
                explicit.extend((topic, p) for p in partitions)
        if whole:
            known = access.topic_partitions(set(whole))
            absent = [t for t in whole if t not in known]
            if absent:
                raise CliError(f"Topic '{absent[0]}' does not exist")
            explicit.extend((t, p) for t in whole for p in sorted(known[t]))
        return {g: list(explicit) for g in groups}

    def _check_partitions(self, access: KafkaAccess, partitions: set[TopicPartition]) -> None:
        if not partitions:
            return
        known = access.topic_partitions({t for t, _ in partitions})
        absent = sorted(tp for tp in partitions if tp[1] not in known.get(tp[0], {}))
        if absent:
            raise CliError(f'The partitions "{few([f"{t}-{p}" for t, p in absent])}" do not exist')
        leaderless = sorted(tp for tp in partitions if known[tp[0]][tp[1]] < 0)
        if leaderless:
            names = ",".join(f"{t}-{p}" for t, p in leaderless)
            raise ClusterError(f'The partitions "{names}" have no leader')

    def _apply(self, access: KafkaAccess, result: ResetResult) -> ResetResult:
        """Back up, announce, re-check, commit, read back and classify (see commands.guard)."""
        from kafka_groups.access.cluster import PROTOCOL_LAYER_THRESHOLD

        targets = {p.group: dict(p.offsets) for p in result.plans if p.offsets}
        replaced = {
            g: {tp: o for tp, o in result.current.get(g, {}).items() if tp in targets[g]} for g in targets
        }
        tool = "kafka-streams-groups" if self.streams else "kafka-consumer-groups"
        groups = sorted(targets)
        fault_point("before-backup")
        backup = save_backup("reset", replaced, self.backup_dir)
        fault_point("after-backup")
        undo = undo_command(backup, groups, self.connection, tool) if backup else None
        if backup:
            announce(undo_hint("this reset replaced", backup, groups, self.connection, tool))
        many = sum(len(o) for o in targets.values()) > PROTOCOL_LAYER_THRESHOLD
        self._recheck(access, result, targets, many)

        def read(reader: KafkaAccess) -> dict[str, dict[TopicPartition, int]]:
            return self._committed(reader, list(targets), many)

        sent = Write(
            access,
            send=lambda: access.alter_offsets(targets, many=many),
            read_back=read,
            in_doubt=lambda answer: any(answer.values()),
            verify_always=True,
        ).run()
        units: dict[str, Landed] = {}
        reasons: dict[str, str] = {}
        failed: list[tuple[str, str]] = []
        for group, offsets in targets.items():
            error = sent.send_error or (sent.answer or {}).get(group)
            after = None
            if sent.state is not None:
                after = {tp: o for tp, o in sent.state.get(group, {}).items() if tp in offsets}
            # A commit the broker acknowledged has landed, whether or not the read-back answered.
            landed = (
                Landed.DONE if after is None and error is None else classify(after, replaced[group], offsets)
            )
            units[group] = landed
            if landed is Landed.DONE and after is None:
                print(
                    f"Note: the broker acknowledged the reset of group '{group}'; reading it back "
                    f"failed ({sent.read_error}).",
                    file=sys.stderr,
                )
            if landed is Landed.DONE:
                if error:
                    print(
                        f"Note: the commit for group '{group}' answered \"{error}\", but the offsets read "
                        "back are the new ones: the reset is done.",
                        file=sys.stderr,
                    )
                continue
            if error is None and after is not None:
                wrong = [
                    f"{t}-{p} is at {after.get((t, p), 'no offset')}, not {o}"
                    for (t, p), o in offsets.items()
                    if after.get((t, p)) != o
                ]
                error = "; ".join(wrong[:MOVED_NAMED]) + (
                    f" and {len(wrong) - MOVED_NAMED} more" if len(wrong) > MOVED_NAMED else ""
                )
            reasons[group] = error or sent.read_error or ""
            if landed is Landed.NOT_APPLIED:
                failed.append((group, f"not applied, nothing changed ({reasons[group]})"))
            else:
                failed.append((group, f"outcome unknown ({reasons[group]})"))
        done = [p for p in result.plans if units.get(p.group) is Landed.DONE]
        deleted, unsure = self._delete_internal_topics(access, replace(result, plans=tuple(done)))
        messages = list(result.messages) + deleted
        verdict = Verdict(
            "reset",
            {f"group '{g}'": landed for g, landed in units.items()}
            | {f"internal topics of group '{g}'": Landed.UNKNOWN for g in unsure},
            {f"group '{g}'": why for g, why in reasons.items()}
            | {f"internal topics of group '{g}'": why for g, why in unsure.items()},
            check_command(groups, self.connection, tool),
            undo,
        )
        changes = {
            "executed": True,
            "backup": backup,
            "failed": tuple(failed),
            "messages": tuple(messages),
            "verdict": verdict,
        }
        return ResetResult(**{**result.__dict__, **changes})

    def _recheck(
        self,
        access: KafkaAccess,
        result: ResetResult,
        targets: dict[str, dict[TopicPartition, int]],
        many: bool,
    ) -> None:
        """Right before the commit: refuse when the groups' committed offsets are no longer
        those the plan was made against (another writer, or a --from-file plan applied late)."""
        try:
            now = self._committed(access, list(targets), many)
        except CliError as exc:
            raise ClusterError(
                f"nothing was reset: the committed offsets could not be read again right before the "
                f"commit ({exc.message})"
            ) from None
        changed = []
        for g in sorted(targets):
            planned, found = result.current.get(g, {}), now.get(g, {})
            changed += [
                f"{g}: {t}-{p} {_shown(planned.get((t, p)))} -> {_shown(found.get((t, p)))}"
                for t, p in sorted(moved(planned, found))
            ]
        if changed:
            raise CliError(
                f"nothing was reset: the committed offsets changed after the plan was made "
                f"({len(changed)} partition(s): {name_some(changed)}); another writer is at work on the "
                "group, plan again once it is done"
            )

    @staticmethod
    def _source_partitions(facts: GroupFacts, committed: dict[TopicPartition, int]) -> list[TopicPartition]:
        from kafka_groups.core.streams import input_partitions

        assert facts.streams_group is not None
        return input_partitions(facts.streams_group, committed)

    def _internal_topics(self, found: dict[str, GroupFacts], groups: list[str]) -> dict[str, tuple[str, ...]]:
        """Per streams group, the internal topics ``--execute`` deletes after its reset: all of
        the group's own (``--delete-all-internal-topics``) or the named ones it owns. A named
        topic no group being reset owns is refused before anything changes (the Apache tool
        deletes whatever topic it is given)."""
        if not (self.delete_all_internal_topics or self.delete_internal_topics):
            return {}
        from kafka_groups.core.streams import internal_topics

        own = {g: internal_topics(d).deletable for g in groups if (d := found[g].streams_group) is not None}
        if self.delete_all_internal_topics:
            return {g: topics for g, topics in own.items() if topics}
        named = list(dict.fromkeys(self.delete_internal_topics))
        strangers = [t for t in named if not any(t in topics for topics in own.values())]
        if strangers:
            names = ", ".join(f"'{g}'" for g in groups)
            raise CliError(
                f"--delete-internal-topic {strangers[0]} is not an internal topic of the streams group "
                f"{names}; nothing was reset or deleted"
            )
        chosen = {g: tuple(t for t in named if t in topics) for g, topics in own.items()}
        return {g: topics for g, topics in chosen.items() if topics}

    @staticmethod
    def _delete_internal_topics(access: KafkaAccess, result: ResetResult) -> tuple[list[str], dict[str, str]]:
        """After an executed reset: delete the chosen internal topics of each reset group, with
        the Apache tool's messages when that fails. Also returns, per group, why the deletion's
        outcome is unknown (sent, and the topics could not be listed afterwards)."""
        messages = []
        unknown: dict[str, str] = {}
        for plan in result.plans:
            topics = result.internal_topics.get(plan.group)
            if not topics:
                continue
            about = f"Deleting internal topics for group '{plan.group}' failed"
            try:
                landed, why = delete_topics(access, topics)
            except TopicCommandError as exc:
                if exc.kafka_code == UNKNOWN_TOPIC_OR_PARTITION:
                    messages.append(f"{about} because the topics do not exist.")
                else:
                    messages.append(f"{about} due to {exc.message}")
                continue
            if landed is Landed.NOT_APPLIED:
                messages.append(f"{about} due to {why}")
            elif landed is Landed.UNKNOWN:
                unknown[plan.group] = why
        return messages, unknown

    def _report(self, result: ResetResult) -> None:
        for group, state in () if result.streams else result.refused:
            print(
                f"Error: Assignments can only be reset if the group '{group}' is inactive, "
                f"but the current state is {state}.",
                file=sys.stderr,
            )
        if result.verdict is not None and result.verdict.units_in(Landed.UNKNOWN):
            result.verdict.conclude()  # outcome unknown: exit 4, with the check and the undo
        if not result.failed and not result.refused and not result.outside:
            return
        if result.failed:
            message = "some offsets did not take: " + "; ".join(f"group '{g}': {w}" for g, w in result.failed)
        elif result.refused:
            message = "active groups were not reset: " + ", ".join(f"'{g}' ({s})" for g, s in result.refused)
        else:  # a script asked for topics the group does not read: nothing was reset for it
            names = ", ".join(f"'{g}'" for g in result.outside)
            message = f"not reset: the --input-topic topics are not all part of the group {names}"
        done = [p for p in result.plans if p.offsets and p.group not in dict(result.failed)]
        raise PartialFailure(message) if done else CliError(message)


def _shown(offset: int | None) -> str:
    return "none" if offset is None else str(offset)
