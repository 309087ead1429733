"""``--reset-offsets`` for consumer groups and streams groups, from argv to commit:

1. :meth:`ResetOffsetsRequest.spec` validates the flags (nothing contacted yet);
2. :func:`~kafka_groups.commands.reset_gather.gather` reads a snapshot of the cluster;
3. :func:`~kafka_groups.core.reset_plan.plan_reset` (pure) turns it into the plan;
4. with ``--execute``, the plan is shown through the runner's ``show`` callback (in the text
   layout, before the commit, as the Apache tool) and
   :func:`~kafka_groups.commands.reset_apply.apply_reset` commits that very plan;
5. the :class:`~kafka_groups.render.outcome.Outcome` is returned: the runner prints it
   (``kafka_groups.render.reset``) and turns its failure into the exit code."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field, replace

from kafka_groups.apache_argv import parse_long
from kafka_groups.commands.reset_gather import gather
from kafka_groups.commands.session import cluster_session
from kafka_groups.core.group_select import GroupSelection
from kafka_groups.core.plan_file import few, read_plan
from kafka_groups.core.reset import ResetSpec, Scenario
from kafka_groups.core.reset_args import (
    by_duration_timestamp,
    parse_datetime,
    parse_friendly_datetime,
    parse_topic_arg,
)
from kafka_groups.core.reset_plan import (
    ResetRequest,
    ResetResult,
    check_source,
    plan_reset,
    reset_failure,
)
from kafka_groups.core.selectors import check_backup_dir, check_groups
from kafka_groups.errors import UsageError
from kafka_groups.render import OutputFormat, resolve_format, wants_detail
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs

NO_EXECUTE_WARNING = (
    "WARN: No action will be performed as the --execute option is missing. In version 5.0, this command "
    "will require either --dry-run or --execute to be specified. You should add the --dry-run option "
    "explicitly if you are scripting this command and want to keep the current default behavior without "
    "prompting."
)


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
    group_patterns: tuple[str, ...] = ()  # --group-pattern
    exclude_groups: tuple[str, ...] = ()  # --exclude-group
    skip_active: bool = False  # --skip-active
    allow_non_atomic: bool = False  # --allow-non-atomic: commit in steps where a transaction is refused
    # The subcommand form: --to-datetime takes what python-dateutil reads too (the flag form keeps
    # exactly the Apache formats).
    friendly_times: bool = False

    @property
    def selection(self) -> GroupSelection:
        return GroupSelection(self.groups, self.all_groups, self.group_patterns, self.exclude_groups)

    def selection_for(self, spec: ResetSpec) -> GroupSelection:
        """The groups to reset. With ``--from-file``, ``--all-groups`` means every group the
        file names, whether it exists now or not (the undo of a ``--delete`` of many groups
        restores groups that no longer exist); the Apache tool takes the cluster's groups
        instead, leaving out the file's groups that do not exist."""
        if self.all_groups and spec.plan is not None:
            return GroupSelection(tuple(spec.plan), excludes=self.exclude_groups)
        return self.selection

    # -- validation, before anything is contacted ----------------------------------------
    def spec(self) -> ResetSpec:
        if self.dry_run and self.execute_changes:
            raise UsageError("Option [reset-offsets] only accepts one of [execute] and [dry-run]")
        self.selection.check("reset-offsets")
        check_backup_dir(self.backup_dir)
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
            if self.friendly_times:
                return ResetSpec(scenario, timestamp_ms=self._friendly_datetime(value or "")[0])
            return ResetSpec(scenario, timestamp_ms=parse_datetime(value or ""))
        if scenario is Scenario.BY_DURATION:
            now_ms = time.time_ns() // 10**6
            return ResetSpec(scenario, timestamp_ms=by_duration_timestamp(value or "", now_ms))
        if scenario is Scenario.FROM_FILE:
            skipped: dict[str, int] = {}
            plan = read_plan(value or "", self.groups, skipped=skipped)
            return ResetSpec(scenario, plan=plan, skipped_rows=skipped)
        if scenario is Scenario.TO_GROUP:
            source = value or ""
            check_groups([source], "--to-group")
            spec = ResetSpec(scenario, source=source)
            check_source(spec, self.groups, None)  # the source named as a target too: refused now
            return spec
        return ResetSpec(scenario)

    @staticmethod
    def _friendly_datetime(value: str) -> tuple[int, bool]:
        today = time.gmtime()
        return parse_friendly_datetime(value, (today.tm_year, today.tm_mon, today.tm_mday))

    def planning(self, spec: ResetSpec) -> ResetRequest:
        return ResetRequest(
            spec,
            topics=self.topics,
            all_topics=self.all_topics,
            streams=self.streams,
            execute=self.execute_changes,
            delete_internal_topics=self.delete_internal_topics,
            delete_all_internal_topics=self.delete_all_internal_topics,
            skip_active=self.skip_active,
        )

    def notices(self, spec: ResetSpec) -> list[str]:
        """What is said on stderr before the cluster is contacted."""
        notices = []
        if self.warn_no_execute and not self.dry_run and not self.execute_changes:
            notices.append(NO_EXECUTE_WARNING)
        scenario, value = self.scenarios[0]
        if (
            self.friendly_times
            and scenario is Scenario.TO_DATETIME
            and self._friendly_datetime(value or "")[1]
        ):
            from kafka_groups.core.times import iso_utc_ms

            notices.append(f"Notice: --to-datetime '{value}' is taken as {iso_utc_ms(spec.timestamp_ms)}")
        if spec.skipped_rows:
            rows = sum(spec.skipped_rows.values())
            others = few([f"'{g}'" for g in spec.skipped_rows])
            notices.append(
                f"Notice: --from-file skipped {rows:,} row(s) of groups that are not being reset ({others})"
            )
        return notices

    # -- the work: gather, plan, show, apply, return what happened -----------------------------
    def execute(self, show: Show | None = None) -> Outcome:
        spec = self.spec()
        warnings = tuple(self.notices(spec))
        if show is not None:  # said before the cluster is contacted
            show(Outcome(warnings=warnings))
            warnings = ()
        request = self.planning(spec)
        # The plan is shown before the commit (as the Apache tool prints it) in its text
        # layout; the richer formats and streams show what the commit did, so they come after.
        early = self.execute_changes and not self.streams and show is not None
        early = early and resolve_format(self.output, sys.stdout) is OutputFormat.TEXT
        with cluster_session(self.connection, writes=self.execute_changes) as access:
            from kafka_groups.render.progress import working

            # Many groups or whole topics take a while to plan: a spinner on a terminal only.
            selection = self.selection_for(spec)
            with working("Planning the reset…", enabled=selection.many):
                snapshot = gather(access, request, selection, wants_detail(self.output), self.export)
            plan = plan_reset(request, snapshot)
            warnings += snapshot.notices
            result = ResetResult(
                plan,
                export=self.export,
                single_group=len(self.groups) == 1,
                streams=self.streams,
                messages=plan.messages,
            )
            result = replace(result, error=reset_failure(result))
            if not (self.execute_changes and plan.groups):
                return Outcome(result, self.output, warnings, failure=result.error)
            if show is not None:  # before the commit: the warnings, and the plan when early
                show(Outcome(result if early else None, self.output, warnings, before_write=True))
                warnings = ()
            # Loaded here: a dry run, and an --execute with no group to reset, load no write guard.
            from kafka_groups.commands.reset_apply import apply_reset

            result = apply_reset(access, result, self.connection, self.backup_dir, self.allow_non_atomic)
        return Outcome(result, self.output, warnings, failure=result.error, shown=early)
