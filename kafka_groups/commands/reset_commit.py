"""``--reset-offsets --execute``, the commit itself: each group's new offsets go out in the way
that keeps its reset all-or-nothing.

* **One OffsetCommit** where they fit one record batch of ``__consumer_offsets`` (its
  ``max.message.bytes``, 1 MiB by default: about 12,000 partitions with short names). Almost
  every reset takes this path, and nothing is asked of the cluster to choose it.
* **One transaction** where they do not: the offsets go out as TxnOffsetCommit requests of one
  batch each, invisible until EndTxn commits them all at once
  (:mod:`kafka_groups.access.transactions`). Between the chunks and before the commit, the
  write guard's fault points (``between-chunks``, ``before-txn-commit``); right before the
  commit, the group's offsets and state are read again, and the transaction is aborted when
  another writer moved them or the group gained members (the broker itself takes a
  transactional commit into an active group).
* **Several OffsetCommits in a row**, only with ``--allow-non-atomic`` and only where the
  cluster refuses the transaction: not atomic. A journal file next to the backup records each
  step that landed (a plan file of the offsets it committed), and the undo restores them all.

Without ``--allow-non-atomic``, a group that needs a transaction the cluster refuses stops the
reset before anything is written (the backup included), with one line that says why and which
permission would allow it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from kafka_groups.commands.guard import MOVED_NAMED, fault_point, moved, name_some
from kafka_groups.core.commit_batches import (
    DEFAULT_MAX_MESSAGE_BYTES,
    chunks,
    commit_records,
    fits,
)
from kafka_groups.core.describe import TopicPartition
from kafka_groups.core.reset import ALLOWED_STATES
from kafka_groups.errors import CliError, ClusterError

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.access.transactions import OffsetsTransaction
    from kafka_groups.core.reset_plan import Plan

NON_ATOMIC_FLAG = "--allow-non-atomic"
# Below this many bytes a group's commit fits one batch under any limit a cluster sets (the
# offsets topic's max.message.bytes is never set this low: the groups' own records need more),
# so the limit is not even read: a reset of up to about 200 partitions asks nothing more.
SURELY_FITS = 16_384
TXN_TIMEOUT_FLOOR_MS = 60_000  # the transaction's timeout: at least this, or twice --timeout
TXN_TIMEOUT_CEILING_MS = 900_000  # the brokers' default transaction.max.timeout.ms

Offsets = Mapping[TopicPartition, int]


def transaction_timeout_ms(timeout_ms: int) -> int:
    """How long the cluster keeps a transaction of ours open before it aborts it: long enough
    for its chunks, short enough that one a killed run left open does not hold up the group's
    consumers for long (the next reset of the group ends it at once anyway)."""
    return max(TXN_TIMEOUT_FLOOR_MS, min(2 * timeout_ms, TXN_TIMEOUT_CEILING_MS))


@dataclass
class Routes:
    """How each group's offsets are committed (decided before anything is written)."""

    limit: int | None = None  # the offsets topic's max.message.bytes, when it was read
    unread: str | None = None  # why the limit could not be read (the default was assumed)
    # Groups over the assumed limit sent in one commit all the same (the limit was not read and
    # the cluster refused the transaction): why, said if the broker refuses that commit.
    hoping: dict[str, str] = field(default_factory=dict)
    transactions: dict[str, OffsetsTransaction] = field(default_factory=dict)
    chunks: dict[str, list[list[TopicPartition]]] = field(default_factory=dict)  # transactions and steps
    steps: set[str] = field(default_factory=set)  # --allow-non-atomic: committed step by step
    refused: dict[str, str] = field(default_factory=dict)  # why a step-by-step group has no transaction
    journal: str | None = None  # the steps' journal, once started

    def single(self, targets: Mapping[str, Offsets]) -> dict[str, Offsets]:
        """The groups committed in one OffsetCommit each."""
        return {g: o for g, o in targets.items() if g not in self.chunks}

    @property
    def non_atomic(self) -> bool:
        return bool(self.steps)


def route(
    access: KafkaAccess, targets: Mapping[str, Offsets], allow_non_atomic: bool, timeout_ms: int
) -> Routes:
    """Decide, before the backup, how each group is committed; start the producer of each
    transaction (which also ends one that a killed earlier run left open). A group that needs
    a transaction the cluster refuses is refused here, nothing written, unless
    ``allow_non_atomic``."""
    from kafka_groups.access.transactions import TransactionRefused, transaction_acl

    routes = Routes()
    large = [g for g, offsets in targets.items() if not fits(commit_records(g, offsets), SURELY_FITS)]
    if not large:
        return routes
    routes.limit = access.offsets_topic_limit()
    limit = routes.limit or DEFAULT_MAX_MESSAGE_BYTES
    if routes.limit is None:
        routes.unread = (
            f"the max.message.bytes of __consumer_offsets could not be read (DESCRIBE_CONFIGS on topic "
            f"'__consumer_offsets'), so {limit:,}, the default, was assumed"
        )
    for group in large:
        records = list(commit_records(group, targets[group]))
        if fits(records, limit):
            if routes.unread is not None:  # said if the broker refuses the commit after all
                routes.hoping[group] = (
                    f"a commit of {len(records):,} partitions may be larger than one batch of "
                    f"__consumer_offsets: {routes.unread}"
                )
            continue
        routes.chunks[group] = chunks(records, limit)
        try:
            routes.transactions[group] = access.begin_transaction(group, transaction_timeout_ms(timeout_ms))
        except TransactionRefused as exc:
            if routes.unread is not None and not allow_non_atomic:
                # Not sure it is too large: one commit is tried, which the broker takes or
                # refuses whole (and then the failure names both permissions).
                del routes.chunks[group]
                routes.hoping[group] = (
                    f"it may be larger than one batch of __consumer_offsets: {routes.unread}, and the "
                    f"transaction that commits it in parts was refused ({exc.message})"
                )
                continue
            if not allow_non_atomic:
                count = len(routes.chunks[group])
                raise CliError(
                    f"nothing was reset: group '{group}' commits {len(records):,} partitions, more than "
                    f"one batch of __consumer_offsets holds (max.message.bytes {limit:,}), and the cluster "
                    f"refuses the transaction that commits them at once: {exc.message}. Grant "
                    f"{transaction_acl(group)} (or ask for a cluster with transactions), or commit them in "
                    f"{count} steps that are not atomic with {NON_ATOMIC_FLAG}"
                ) from None
            routes.steps.add(group)
            routes.refused[group] = exc.message
    return routes


@dataclass
class Committed:
    """What the commit answered, per group: None (acknowledged) or the error. ``aborted``:
    transactions whose commit was never sent, so they can never take effect (why);
    ``steps``: for --allow-non-atomic groups, how many of their steps landed."""

    errors: dict[str, str | None]
    aborted: dict[str, str] = field(default_factory=dict)
    steps: dict[str, int] = field(default_factory=dict)

    def in_doubt(self) -> bool:
        return any(self.errors.values())


def commit(
    access: KafkaAccess,
    routes: Routes,
    targets: Mapping[str, Offsets],
    plan: Plan,
    streams: bool,
    journal: str | None,
) -> Committed:
    """Send every group's offsets by its route: the single commits together first, then each
    transaction, then the step-by-step groups (``journal``: where their steps are recorded)."""
    from kafka_groups.access.cluster import COMMIT_THROUGH_PROTOCOL_ABOVE

    single = routes.single(targets)
    many = sum(len(o) for o in single.values()) > COMMIT_THROUGH_PROTOCOL_ABOVE
    errors: dict[str, str | None] = dict(access.alter_offsets(single, many=many)) if single else {}
    result = Committed(errors)
    for group, txn in routes.transactions.items():
        _in_transaction(access, txn, routes.chunks[group], targets[group], plan, streams, result)
    for group in sorted(routes.steps):
        _in_steps(access, group, routes.chunks[group], targets[group], journal, result)
    return result


def _in_transaction(
    access: KafkaAccess,
    txn: OffsetsTransaction,
    runs: list[list[TopicPartition]],
    offsets: Offsets,
    plan: Plan,
    streams: bool,
    result: Committed,
) -> None:
    """One group's offsets in one transaction: open it, send each chunk, check the group once
    more, commit. Any failure before the commit aborts it (nothing of it becomes visible)."""
    from kafka_groups.access.transactions import TransactionFenced

    group = txn.group
    try:
        access.add_offsets_to_transaction(txn)
        # The first part alone: a part the broker refuses (a batch over its limit after all)
        # stops the transaction before the others are sent. Then the rest in flight together,
        # in order, on the coordinator's connection (each part is its own batch either way;
        # parts on connections of their own were measured no sooner: bench/RESULTS.md).
        access.commit_parts_in_transaction(txn, runs[:1], offsets)
        if len(runs) > 1:
            fault_point("between-chunks")
            _stop_if_interrupted()
            access.commit_parts_in_transaction(txn, runs[1:], offsets)
        _recheck_group(access, plan, group, streams)
        fault_point("before-txn-commit")
        _stop_if_interrupted()
    except CliError as exc:
        why = f"the transaction was aborted: {exc.message}"
        left_open = access.abort_quietly(txn)
        if left_open:
            why += (
                f"; aborting it failed too ({left_open}), so the cluster ends it when its timeout of "
                f"{txn.timeout_ms // 1000} s passes, or the next reset of the group ends it at once"
            )
        result.errors[group] = why
        result.aborted[group] = why
        return
    try:
        access.end_transaction(txn, commit=True)
    except TransactionFenced as exc:  # it can never commit now
        result.errors[group] = result.aborted[group] = exc.message
        return
    except ClusterError as exc:  # sent, and not answered: the read-back decides
        result.errors[group] = (
            f"the commit of the transaction '{txn.transactional_id}' was not answered ({exc.message}); "
            "its offsets appear all at once if it committed, or never if the cluster aborts it, within "
            f"{txn.timeout_ms // 1000} s"
        )
        return
    result.errors[group] = None


def _stop_if_interrupted() -> None:
    """An interrupt (Ctrl-C, SIGTERM) noted while the transaction is open: nothing of it is
    visible yet, so it is aborted rather than committed (kafka_groups/interrupts.py)."""
    from kafka_groups import interrupts

    if interrupts.requested():
        raise CliError("an interrupt came before its commit")


def _recheck_group(access: KafkaAccess, plan: Plan, group: str, streams: bool) -> None:
    """Right before a transaction commits: the group's committed offsets are still those the
    plan was made against, and the group still has no members (a transactional commit from
    outside the group is taken by the broker even while it has some)."""
    try:
        now = access.committed_positions([group]).get(group, {})
        if streams:
            described, _ = access.describe_streams_groups([group])
            state = described[group].state if group in described else "Dead"
        else:
            found, _missing = access.describe_groups([group])
            state = found[group].state if group in found else "Dead"
    except CliError as exc:
        raise ClusterError(
            f"the group could not be checked again right before the commit ({exc.message})"
        ) from None
    changed = moved(plan.current.get(group, {}), now)
    if changed:
        names = [f"{t}-{p}" for t, p in sorted(changed)]
        raise CliError(
            f"the committed offsets changed while the transaction was open ({len(changed)} partition(s): "
            f"{name_some(names, MOVED_NAMED)}); another writer is at work on the group"
        )
    if state not in ALLOWED_STATES:
        raise CliError(f"the group became {state} while the transaction was open")


def _in_steps(
    access: KafkaAccess,
    group: str,
    runs: list[list[TopicPartition]],
    offsets: Offsets,
    journal: str | None,
    result: Committed,
) -> None:
    """--allow-non-atomic: one OffsetCommit per step, in order, each recorded in the journal
    once acknowledged; the first step that fails stops the group."""
    from kafka_groups.access.cluster import COMMIT_THROUGH_PROTOCOL_ABOVE

    result.steps[group] = 0
    for number, run in enumerate(runs):
        if number:
            fault_point("between-chunks")
            from kafka_groups import interrupts

            if interrupts.requested():  # the steps sent stay; no more is sent
                result.errors[group] = (
                    f"stopped by an interrupt after step {number} of {len(runs)}; the steps after it "
                    "were not sent"
                )
                return
        step = {tp: offsets[tp] for tp in run}
        error = access.alter_offsets({group: step}, many=len(step) > COMMIT_THROUGH_PROTOCOL_ABOVE).get(group)
        if error is not None:
            result.errors[group] = (
                f"step {number + 1} of {len(runs)} failed ({error}); {number} step(s) before it landed"
            )
            return
        result.steps[group] = number + 1
        if journal is not None:
            record_step(journal, group, step)
    result.errors[group] = None


# -- the journal of a step-by-step commit ------------------------------------------------------
def journal_path(backup: str | None, backup_dir: str | None, groups: list[str]) -> str:
    """Where the steps are recorded: beside the backup (``<backup>.journal.csv``), or in the
    backup directory when there was nothing to back up."""
    if backup:
        return str(Path(backup).with_suffix(".journal.csv"))
    import datetime as dt

    from kafka_groups.commands.backup import default_backup_dir

    folder = Path(backup_dir) if backup_dir else default_backup_dir()
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    label = groups[0] if len(groups) == 1 else f"{len(groups)}-groups"
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in label)[:80]
    return str(folder / f"reset-{safe}-{stamp}.journal.csv")


def start_journal(path: str) -> None:
    """Create the journal, empty and on disk, before the first step."""
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
        _sync_folder(Path(path).parent)
    except OSError as exc:
        raise CliError(
            f"nothing was reset: cannot create the journal {path}: {exc.strerror or exc}"
        ) from None


def record_step(path: str, group: str, offsets: Offsets) -> None:
    """Append a step's offsets (group,topic,partition,offset rows) and sync them to disk. A
    journal that cannot be written does not stop the commit: the read-back still tells what
    landed."""
    from kafka_groups.core.plan_file import backup_csv

    try:
        with open(path, "a", encoding="utf-8") as journal:
            journal.write(backup_csv({group: offsets}))
            journal.flush()
            os.fsync(journal.fileno())
    except OSError:
        pass


def _sync_folder(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def limit_text(routes: Routes) -> str:
    if routes.limit is None:
        return f"{DEFAULT_MAX_MESSAGE_BYTES:,}, assumed"
    return f"{routes.limit:,}"


def read_back(
    reader: KafkaAccess, routes: Routes, targets: Mapping[str, Offsets], sent: Committed | None
) -> dict[str, Offsets]:
    """What each group holds after the commit. A transaction whose commit was sent is read as
    its consumers read it (stable: its offsets become visible when the cluster has written the
    commit to the group, a moment after EndTxn answers); every other group as the plan read it."""
    aborted = sent.aborted if sent is not None else {}
    stable = {g: targets[g] for g in routes.transactions if g not in aborted}
    plain = [g for g in targets if g not in stable]
    state = reader.committed_positions(plain) if plain else {}
    if stable:
        state.update(reader.committed_stable(stable))
    return state
