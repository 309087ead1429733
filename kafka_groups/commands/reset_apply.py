"""``--reset-offsets --execute``, the last step: commit a :class:`~kafka_groups.core.reset_plan.Plan`
under the write discipline of :mod:`kafka_groups.commands.guard` (back up, announce, re-check,
commit, read back, classify), then delete the chosen internal topics of the streams groups
that were reset. Returns the result with what happened; prints nothing but the announcement,
which must reach the user before anything is sent."""

from __future__ import annotations

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
from kafka_groups.core.reset_plan import Plan, ResetResult, reset_failure
from kafka_groups.errors import CliError, ClusterError, TopicCommandError
from kafka_groups.settings import ConnectionArgs

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess


def apply_reset(
    access: KafkaAccess, result: ResetResult, connection: ConnectionArgs, backup_dir: str | None
) -> ResetResult:
    """Back up, announce, re-check, commit, read back and classify (see commands.guard)."""
    from kafka_groups.access.cluster import COMMIT_THROUGH_PROTOCOL_ABOVE

    plan = result.plan
    targets = plan.targets
    tool = "kafka-streams-groups" if result.streams else "kafka-consumer-groups"
    groups = sorted(targets)
    name_target(access)
    fault_point("before-backup")
    backup, way_back = back_up(plan, connection, backup_dir, tool)
    fault_point("after-backup")
    undo = way_back.command()
    announce(way_back.hint("this reset replaced"))
    replaced = {g: {tp: o for tp, o in plan.current.get(g, {}).items() if tp in targets[g]} for g in targets}
    many = sum(len(o) for o in targets.values()) > COMMIT_THROUGH_PROTOCOL_ABOVE
    recheck(access, plan)
    sent = Write(
        access,
        send=lambda: access.alter_offsets(targets, many=many),
        read_back=lambda reader: reader.committed_positions(list(targets)),
        in_doubt=lambda answer: any(answer.values()),
        verify_always=True,
        what="reset",
    ).run()
    units: dict[str, Landed] = {}
    reasons: dict[str, str] = {}
    failed: list[tuple[str, str]] = []
    notes: list[str] = []
    for group, offsets in targets.items():
        error = sent.send_error or (sent.answer or {}).get(group)
        after = None
        if sent.state is not None:
            after = {tp: o for tp, o in sent.state.get(group, {}).items() if tp in offsets}
        # A commit the broker acknowledged has landed, whether or not the read-back answered.
        landed = Landed.DONE if after is None and error is None else classify(after, replaced[group], offsets)
        units[group] = landed
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
    return replace(applied, error=unknown or reset_failure(applied))


def back_up(
    plan: Plan, connection: ConnectionArgs, backup_dir: str | None, tool: str
) -> tuple[str | None, Undo]:
    """Save, durably, what the reset changes: the offsets it replaces (put back with
    ``--reset-offsets --from-file``) and the partitions it gives their first offset (deleted
    again with ``--delete-offsets --from-file``); a group that does not exist yet is deleted
    again by the undo instead. Returns the backup of the replaced offsets and the undo."""
    targets = plan.targets
    absent = set(plan.absent)
    replaced = {g: {tp: o for tp, o in plan.current.get(g, {}).items() if tp in targets[g]} for g in targets}
    created = {
        g: {tp: o for tp, o in offsets.items() if tp not in plan.current.get(g, {})}
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
    undo = Undo(
        connection,
        backup_folder(backup_dir),
        tool,
        restore=backup,
        restore_groups=tuple(g for g in sorted(replaced) if replaced[g]),
        created=first,
        absent=tuple(g for g in sorted(targets) if g in absent),
    )
    return backup, undo


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
