"""One discipline for every write the tools make to a cluster.

back up -> announce -> re-check -> send -> verify -> classify

* The backup (when there is something to restore) is written and announced on stderr, with the
  command that restores it, before anything is sent: whatever happens next, the user has it.
* Right before sending, the caller re-reads what the plan was made against; when another writer
  changed it meanwhile, the write is refused and nothing is sent.
* After sending, the state is read back within what remains of ``--timeout`` and each unit
  (a group, a topic) is classified by what the cluster now holds, not by what the send answered:
  all new -> done; all as before -> not applied; mixed or unreadable -> outcome unknown.
  A send that answered with an error but landed is done; one that answered nothing is unknown
  unless the read-back can tell.
* An interrupt (Ctrl-C, SIGTERM) before the send stops the command with nothing sent; from the
  send to the end of the read-back it does not stop the write, whose report follows as ever (a
  second one stops the wait, leaving unknown what is not known by then): kafka_groups/interrupts.py.

Test-only fault points: with ``KAFKA_TOOLS_TEST_FAULT_DIR`` set to a directory, the tools stop
at each named point (:data:`FAULT_POINTS`, and :data:`PART_FAULT_POINTS` in writes of several
parts), create ``<dir>/<point>`` and wait (at most
:data:`FAULT_WAIT_S` seconds) until it is removed. The fault-injection suite pauses or kills the
broker there, or signal the tool. Unset (always, outside that suite), a point costs one
environment lookup.
"""

from __future__ import annotations

import enum
import os
import time
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from kafka_groups import interrupts
from kafka_groups.errors import CliError, OutcomeUnknown, PartialFailure

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionSettings

FAULT_DIR_ENV = "KAFKA_TOOLS_TEST_FAULT_DIR"  # test-only: see the module docstring
FAULT_POINTS = ("before-backup", "after-backup", "before-send", "after-send", "during-read-back")
# Within the send of a write in several parts (a reset's transaction, a delete in parts): between
# two parts, and before a transaction's commit (after the group was checked again).
PART_FAULT_POINTS = ("between-chunks", "before-txn-commit")
# (commands/backup.py adds points inside the writing of a backup: BACKUP_FAULT_POINTS)
FAULT_WAIT_S = 120.0
READ_BACK_FLOOR_MS = 200  # with less time left than this, a read-back is not tried
MOVED_NAMED = 5  # partitions named in a "moved since the plan" refusal; the rest are counted
# Why a write's outcome is not known when a second interrupt stopped the wait for it.
ABANDONED_SEND = "interrupted again while waiting for its answer"
ABANDONED_READ = "interrupted again before it was read back"
NOT_SENT = "an interrupt (they were not sent)"  # a later write skipped once the command was interrupted

A = TypeVar("A")  # what a send answers
S = TypeVar("S")  # what a read-back finds
K = TypeVar("K", bound=Hashable)


def fault_point(point: str) -> None:
    """Test-only: stop at ``point`` while ``$KAFKA_TOOLS_TEST_FAULT_DIR/<point>`` exists."""
    folder = os.environ.get(FAULT_DIR_ENV)
    if not folder:
        return
    marker = Path(folder) / point
    try:
        marker.touch()
    except OSError:
        return
    deadline = time.monotonic() + FAULT_WAIT_S
    while marker.exists() and time.monotonic() < deadline:
        time.sleep(0.02)


class Landed(enum.Enum):
    """What a write did to one unit, as read back from the cluster."""

    DONE = "done"
    NOT_APPLIED = "not applied"
    UNKNOWN = "outcome unknown"


def classify(read: Mapping[K, object] | None, old: Mapping[K, object], new: Mapping[K, object]) -> Landed:
    """Compare what was read back with the state before (``old``) and the intended one
    (``new``); a key missing from a mapping means "absent" (no offset, no topic). ``read`` None:
    nothing could be read. A key whose old and new values agree counts for either side."""
    if read is None:
        return Landed.UNKNOWN
    if read == new:  # the usual answer, compared whole (a reset of 10,000 partitions)
        return Landed.DONE
    keys = set(old) | set(new)
    if all(read.get(k) == new.get(k) for k in keys):
        return Landed.DONE
    if all(read.get(k) == old.get(k) for k in keys):
        return Landed.NOT_APPLIED
    return Landed.UNKNOWN


def moved(baseline: Mapping[K, object], now: Mapping[K, object]) -> list[K]:
    """The keys whose value differs between the two readings (appeared, vanished or changed)."""
    if baseline == now:  # the usual answer, compared whole (a reset of 10,000 partitions)
        return []
    return [k for k in {**baseline, **now} if baseline.get(k) != now.get(k)]


def name_some(items: Iterable[str], limit: int = MOVED_NAMED) -> str:
    """``a, b, c`` or ``a, b, c and 4 more``."""
    listed = list(items)
    shown = ", ".join(listed[:limit])
    return shown if len(listed) <= limit else f"{shown} and {len(listed) - limit} more"


@dataclass(frozen=True)
class Sent(Generic[A, S]):
    """What happened once a write was sent."""

    answer: A | None  # the send's answer; None when it raised
    send_error: str | None  # why the send raised
    state: S | None  # what the read-back found; None when nothing could be read
    read_error: str | None  # why nothing could be read


@dataclass
class Write(Generic[A, S]):
    """One guarded write: ``send`` it, then ``read_back`` the state it changes.

    The read-back runs after every send that failed or whose answer is ``in_doubt``
    (``verify_always``: after every send). After a failed or doubtful send it runs on a fresh
    connection limited to what remains of the timeout (at least half of it when the send
    answered), so a paused or dead broker cannot hold the tool past that; after a clean answer, on
    the command's own connection."""

    access: KafkaAccess
    send: Callable[[], A]
    read_back: Callable[[KafkaAccess], S]
    in_doubt: Callable[[A], bool] = lambda _answer: False
    verify_always: bool = False
    definite: tuple[type[CliError], ...] = ()  # errors that say for sure nothing was done: raised
    what: str = "write"  # the noun an interrupt's message uses: "reset", "deletion", ...

    def run(self) -> Sent[A, S]:
        """Send, then read back when in doubt. From right before the send to the end of the
        read-back an interrupt does not stop the command (kafka_groups/interrupts.py): the first
        is noted and the write goes on; a second stops the wait, and what is not known by then
        (the answer, the read-back) is left unknown for the caller to report as such."""
        fault_point("before-send")
        answered: list[Sent[A, S]] = []  # what the send answered, once it has
        try:
            with interrupts.sending(self.what):
                return self._send_and_verify(answered)
        except interrupts.Abandoned:
            if not answered:
                return Sent(None, ABANDONED_SEND, None, ABANDONED_READ)
            return replace(answered[0], state=None, read_error=ABANDONED_READ)

    def _send_and_verify(self, answered: list[Sent[A, S]]) -> Sent[A, S]:
        settings = self.access.settings
        deadline = time.monotonic() + settings.timeout_s
        answer: A | None = None
        send_error = None
        try:
            answer = self.send()
        except self.definite:
            raise
        except CliError as exc:
            send_error = exc.message
        answered.append(Sent(answer, send_error, None, None))
        fault_point("after-send")
        doubtful = send_error is not None or (answer is not None and self.in_doubt(answer))
        if not doubtful and not self.verify_always:
            return Sent(answer, None, None, None)
        fault_point("during-read-back")
        left_ms = int((deadline - time.monotonic()) * 1000)
        if send_error is None:
            left_ms = max(left_ms, settings.timeout_ms // 2)  # an answered send: at least half the timeout
        if left_ms < READ_BACK_FLOOR_MS:
            return Sent(answer, send_error, None, "no time was left within --timeout to read it back")
        # After a lost or doubtful answer (an error for some unit, often the client's own timeout), the
        # connection may be the stalled one and its calls wait the whole --timeout: read back on a fresh
        # one that waits only ``left_ms``.
        state, read_error = _read_back(self.read_back, self.access, settings, left_ms, fresh=doubtful)
        return Sent(answer, send_error, state, read_error)


def _read_back(
    read: Callable[[KafkaAccess], S],
    access: KafkaAccess,
    settings: ConnectionSettings,
    left_ms: int,
    fresh: bool,
) -> tuple[S | None, str | None]:
    from kafka_groups.commands.session import cluster_session

    try:
        if not fresh:
            return read(access), None
        with cluster_session(replace(settings, timeout_ms=left_ms)) as reader:
            return read(reader), None
    except CliError as exc:
        return None, exc.message


def announce(lines: str | Iterable[str] | None) -> None:
    """The backup and its undo, on stderr, before anything is sent: each line with its control
    characters escaped (a group id's line break or escape sequence does not reach the terminal;
    the undo quotes them as ``$'...'`` escapes already). When stderr cannot take them (closed,
    full), nothing is sent: the user would not know the way back."""
    if not lines:
        return
    from kafka_groups.escape import escape_controls
    from kafka_groups.render import say
    from kafka_groups.render.stdio import StderrFailed, stderr_failure

    texts = [lines] if isinstance(lines, str) else list(lines)
    say([escape_controls(text) for text in texts], escape=False)
    failure = stderr_failure()
    if failure is not None and not interrupts.sent():
        raise StderrFailed(
            f"nothing was sent: what the write is about to do could not be said on stderr ({failure})"
        )


@dataclass(frozen=True)
class Verdict:
    """The outcome of a whole command: each unit's :class:`Landed`, and what to say."""

    what: str  # "reset", "deletion", ...: the noun used in messages
    units: Mapping[str, Landed]  # unit (quoted as the user knows it) -> what happened
    reasons: Mapping[str, str]  # unit -> the send's or the read-back's error, when there was one
    check: str  # the command that shows the state
    undo: str | None = None  # the command that restores the backup

    def units_in(self, landed: Landed) -> list[str]:
        return [u for u, got in self.units.items() if got is landed]

    def failure(self) -> CliError | None:
        """What :meth:`conclude` raises, returned (None when every unit landed)."""
        try:
            self.conclude()
        except CliError as exc:
            return exc
        return None

    def conclude(self) -> None:
        """Raise the documented exit for the verdict: 4 when any unit's outcome is unknown,
        3 when some landed and some did not, 1 when none did; nothing when all landed."""
        unknown = self.units_in(Landed.UNKNOWN)
        failed = self.units_in(Landed.NOT_APPLIED)
        done = self.units_in(Landed.DONE)
        if unknown:
            first = unknown[0]
            why = f": {self.reasons[first]}" if self.reasons.get(first) else ""
            landed = f"; {name_some(done)} done (verified)" if done else ""
            undo = f"; undo: {self.undo}" if self.undo else ""
            raise OutcomeUnknown(
                f"outcome unknown: the {self.what} of {name_some(unknown)} was sent and could not be "
                f"verified{why}{landed}; check with: {self.check}{undo}"
            )
        if failed:
            first = failed[0]
            why = f" ({self.reasons[first]})" if self.reasons.get(first) else ""
            if done:
                raise PartialFailure(
                    f"the {self.what} of {name_some(failed)} was not applied{why}; "
                    f"{name_some(done)} done (verified)"
                )
            raise CliError(f"the {self.what} of {name_some(failed)} was not applied, nothing changed{why}")


def topics_left(names: Iterable[str]) -> Callable[[KafkaAccess], dict[str, bool]]:
    """A read-back for topic deletions: which of ``names`` still exist."""
    wanted = set(names)

    def read(reader: KafkaAccess) -> dict[str, bool]:
        return dict.fromkeys(wanted & set(reader.list_topics()), True)

    return read


def delete_topics(access: KafkaAccess, names: Iterable[str]) -> tuple[Landed, str]:
    """Delete topics under the write discipline (a definite refusal, ``TopicCommandError``, is
    raised as it came). Returns whether the deletion took -- acknowledged, or read back as gone
    -- and, when it did not or is not known, why."""
    from kafka_groups.commands.target import name_target
    from kafka_groups.errors import TopicCommandError

    name_target(access)
    wanted = list(names)
    if interrupts.requested():  # once the command was interrupted, nothing more is sent
        return Landed.NOT_APPLIED, NOT_SENT
    sent = Write(
        access,
        send=lambda: access.delete_topics(wanted),
        read_back=topics_left(wanted),
        definite=(TopicCommandError,),
        what="deletion of the internal topics",
    ).run()
    if sent.send_error is None:
        return Landed.DONE, ""
    landed = classify(sent.state, dict.fromkeys(wanted, True), {})
    if landed is Landed.UNKNOWN:
        return landed, f"{sent.send_error}; {sent.read_error or 'some of the topics are gone'}"
    return landed, sent.send_error
