"""``--reset-offsets --execute``, the last step: commit a :class:`~kafka_groups.core.reset_plan.Plan`
under the write discipline of :mod:`kafka_groups.commands.guard` (back up, announce, re-check,
commit, read back, classify), then delete the chosen internal topics of the streams groups
that were reset. Returns the result with what happened; prints nothing but the announcement,
which must reach the user before anything is sent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

from kafka_groups.commands.backup import (
    CREATED_SUFFIX,
    Undo,
    backup_folder,
    backup_stamp,
    check_command,
    discard_backup,
    save_backup,
)
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
from kafka_groups.commands.target import name_target
from kafka_groups.core.kafka_errors import UNKNOWN_TOPIC_OR_PARTITION
from kafka_groups.core.offset_table import subset, without
from kafka_groups.core.reset import COMPACT_ABOVE
from kafka_groups.core.reset_plan import Plan, ResetResult, reset_failure
from kafka_groups.errors import CliError, ClusterError, PartialFailure, TopicCommandError
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.commands import reset_commit
    from kafka_groups.core.describe import TopicPartition


def apply_reset(
    access: KafkaAccess,
    result: ResetResult,
    connection: ConnectionArgs,
    backup_dir: str | None,
    allow_non_atomic: bool = False,
) -> ResetResult:
    """Back up, announce, re-check, commit, read back and classify (see commands.guard). The
    commit takes the route that keeps each group's reset all-or-nothing (commands.reset_commit);
    a group too large for one commit whose transaction the cluster refuses stops the reset
    before anything is written, unless ``allow_non_atomic``."""
    from kafka_groups.commands import reset_commit

    plan = result.plan
    targets = plan.targets
    tool = "kafka-streams-groups" if result.streams else "kafka-consumer-groups"
    groups = sorted(targets)
    name_target(access)
    # How each group is committed (one OffsetCommit, or one transaction of several parts), decided
    # before anything is written: a transaction the cluster refuses stops the reset here.
    routes = reset_commit.route(access, targets, allow_non_atomic, access.settings.timeout_ms)
    fault_point("before-backup")
    backup, way_back, replaced = back_up(plan, connection, backup_dir, tool, routes.non_atomic)
    fault_point("after-backup")
    undo = way_back.command()
    announce(way_back.hint("this reset replaced"))
    recheck(access, plan)
    journal = None
    if routes.non_atomic:
        journal = reset_commit.journal_path(backup, backup_dir, groups)
        reset_commit.start_journal(journal)
    answered: list[reset_commit.Committed] = []

    def send() -> reset_commit.Committed:
        answered.append(reset_commit.commit(access, routes, targets, plan, result.streams, journal))
        return answered[-1]

    sent = Write(
        access,
        send=send,
        read_back=lambda reader: reset_commit.read_back(
            reader, routes, targets, answered[-1] if answered else None
        ),
        in_doubt=lambda answer: answer.in_doubt(),
        verify_always=True,
        what="reset",
    ).run()
    units: dict[str, Landed] = {}
    reasons: dict[str, str] = {}
    failed: list[tuple[str, str]] = []
    notes: list[str] = []
    partly: list[str] = []  # --allow-non-atomic groups some of whose steps landed
    answer = sent.answer
    for group, offsets in targets.items():
        error = sent.send_error or (answer.errors.get(group) if answer is not None else None)
        after = None
        if sent.state is not None:
            after = subset(sent.state.get(group, {}), offsets)
        # A commit the broker acknowledged has landed, whether or not the read-back answered.
        landed = Landed.DONE if after is None and error is None else classify(after, replaced[group], offsets)
        if answer is not None and group in answer.aborted and landed is not Landed.DONE:
            landed = Landed.NOT_APPLIED  # its commit was never sent: it cannot take effect
        if group in routes.steps and landed is Landed.UNKNOWN and after is not None:
            took = sum(1 for tp, o in offsets.items() if after.get(tp) == o and replaced[group].get(tp) != o)
            partly.append(group)
            units[group] = Landed.NOT_APPLIED
            failed.append(
                (
                    group,
                    f"partly applied, not atomic: {took:,} of {len(offsets):,} partitions took their new "
                    f"offsets ({error or 'the read-back shows a mix'}); the steps that landed are in "
                    f"{journal}, and the undo puts the group back",
                )
            )
            continue
        units[group] = landed
        if landed is Landed.DONE and group in routes.chunks:
            notes.append(_route_note(group, routes, len(offsets), journal))
        if landed is Landed.DONE and after is None:
            notes.append(
                f"Note: the broker acknowledged the reset of group '{group}'; reading it back "
                f"failed ({sent.read_error})."
            )
        if landed is Landed.DONE:
            if error:
                notes.append(
                    f"Note: the commit for group '{group}' answered \"{error}\", but the offsets read "
                    "back are the new ones: the reset is done."
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
        if group in routes.hoping:
            reasons[group] += f"; {routes.hoping[group]}"
        if landed is Landed.NOT_APPLIED:
            failed.append((group, f"not applied, nothing changed ({reasons[group]})"))
        else:
            failed.append((group, f"outcome unknown ({reasons[group]})"))
    done = [g for g, landed in units.items() if landed is Landed.DONE]
    deleted, unsure = delete_internal_topics(access, plan, done)
    verdict = Verdict(
        "reset",
        {f"group '{g}'": landed for g, landed in units.items()}
        | {f"internal topics of group '{g}'": Landed.UNKNOWN for g in unsure},
        {f"group '{g}'": why for g, why in reasons.items()}
        | {f"internal topics of group '{g}'": why for g, why in unsure.items()},
        check_command(groups, connection, tool),
        undo,
    )
    applied = replace(
        result,
        executed=True,
        backup=backup,
        failed=tuple(failed),
        messages=result.messages + tuple(deleted),
        notes=tuple(notes),
    )
    # Outcome unknown (exit 4, with the check and the undo) when any unit's is.
    unknown = verdict.failure() if verdict.units_in(Landed.UNKNOWN) else None
    failure = unknown or reset_failure(applied)
    if partly and failure is not None and not isinstance(failure, PartialFailure):
        failure = PartialFailure(failure.message)  # part of a group changed: never "nothing changed"
    return replace(applied, error=failure)


def _route_note(group: str, routes: reset_commit.Routes, partitions: int, journal: str | None) -> str:
    """What a reset too large for one commit did instead, said after it."""
    from kafka_groups.commands import reset_commit

    parts = len(routes.chunks[group])
    why = (
        f"{partitions:,} partitions, more than one batch of __consumer_offsets holds "
        f"(max.message.bytes {reset_commit.limit_text(routes)})"
    )
    if group in routes.steps:
        return (
            f"Note: group '{group}' ({why}) was committed in {parts} steps, not atomically "
            f"({reset_commit.NON_ATOMIC_FLAG}; the cluster refused the transaction: "
            f"{routes.refused[group]}); the steps are recorded in {journal}."
        )
    return f"Note: group '{group}' ({why}) was committed in one transaction of {parts} parts."


def back_up(
    plan: Plan, connection: ConnectionArgs, backup_dir: str | None, tool: str, non_atomic: bool = False
) -> tuple[str | None, Undo, dict[str, Mapping[TopicPartition, int]]]:
    """Save, durably, what the reset changes: the offsets it replaces (put back with
    ``--reset-offsets --from-file``) and the partitions it gives their first offset (deleted
    again with ``--delete-offsets --from-file``); a group that does not exist yet is deleted
    again by the undo instead. Returns the backup of the replaced offsets, the undo
    (``non_atomic``: its restore commits step by step too, as this reset does) and the offsets
    replaced, per group (compact tables when the reset is large)."""
    targets = plan.targets
    absent = set(plan.absent)
    compact = sum(len(o) for o in targets.values()) > COMPACT_ABOVE
    replaced = {g: subset(plan.current.get(g, {}), targets[g], compact) for g in targets}
    created = {
        g: without(offsets, plan.current.get(g, {}), compact)
        for g, offsets in targets.items()
        if g not in absent
    }
    stamp = backup_stamp()  # the two files of one reset share it
    backup = save_backup("reset", replaced, backup_dir, stamp=stamp)
    try:
        first = save_backup("reset", created, backup_dir, suffix=CREATED_SUFFIX, stamp=stamp)
    except CliError:
        if backup:  # nothing is sent: no backup of a reset that did not happen is left
            discard_backup(backup)
        raise
    del created
    undo = Undo(
        connection,
        backup_folder(backup_dir),
        tool,
        restore=backup,
        restore_groups=tuple(g for g in sorted(replaced) if replaced[g]),
        created=first,
        absent=tuple(g for g in sorted(targets) if g in absent),
        non_atomic=non_atomic,
    )
    return backup, undo, replaced


def recheck(access: KafkaAccess, plan: Plan) -> None:
    """Right before the commit: refuse when the groups' committed offsets are no longer
    those the plan was made against (another writer, or a --from-file plan applied late)."""
    targets = plan.targets
    try:
        now = access.committed_positions(list(targets))
    except CliError as exc:
        raise ClusterError(
            f"nothing was reset: the committed offsets could not be read again right before the "
            f"commit ({exc.message})"
        ) from None
    changed = []
    for g in sorted(targets):
        planned, found = plan.current.get(g, {}), now.get(g, {})
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


def delete_internal_topics(
    access: KafkaAccess, plan: Plan, groups: list[str]
) -> tuple[list[str], dict[str, str]]:
    """After an executed reset: delete the chosen internal topics of each reset group (in the
    plan's order), with the Apache tool's messages when that fails. Also returns, per group,
    why the deletion's outcome is unknown (sent, and the topics could not be listed after)."""
    messages = []
    unknown: dict[str, str] = {}
    for group_plan in plan.groups:
        topics = plan.internal_topics.get(group_plan.group)
        if group_plan.group not in groups or not topics:
            continue
        about = f"Deleting internal topics for group '{group_plan.group}' failed"
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
            unknown[group_plan.group] = why
    return messages, unknown


def _shown(offset: int | None) -> str:
    return "none" if offset is None else str(offset)
