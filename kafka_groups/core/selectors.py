"""Selectors that name nothing: empty or blank ``--group``, ``--topic``, ``--input-topic`` and
``--delete-internal-topic`` values, ``:0`` partition lists without a topic, and ``--topic``
regexes that match no name at all.

An empty value usually comes from an unset shell variable (``--topic "$TOPIC"``). It must
never widen a command to every group or topic, so these checks refuse it as a usage error
(exit 2) before anything is contacted. Pure code: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable

from kafka_groups.errors import UsageError


def _shown(value: str) -> str:
    """The value as the error line quotes it: control characters escaped, one line."""
    return repr(value)


def is_blank(value: str) -> bool:
    """Empty, or only whitespace (spaces, tabs, newlines, Unicode spaces)."""
    return not value.strip()


def check_names(values: Iterable[str], flag: str, what: str) -> None:
    """Every value of a repeatable name option (``--group``, ``--delete-internal-topic``) must
    name something: an empty or blank one is refused."""
    for value in values:
        if is_blank(value):
            kind = "empty" if value == "" else "blank"
            raise UsageError(
                f"{flag} {_shown(value)} is {kind}: give a {what} name "
                f"(an empty value never means every {what})"
            )


def check_groups(groups: Iterable[str], flag: str = "--group") -> None:
    check_names(groups, flag, "group")


def check_topic_args(args: Iterable[str], flag: str = "--topic") -> None:
    """The ``topic`` or ``topic:0,1`` scopes of a reset or an offset deletion: each must name
    a topic (``:0`` and ``' ':0`` do not). The partition list itself is checked where it is
    parsed, with the Apache tool's messages."""
    for arg in args:
        topic = arg.split(":", 1)[0] if ":" in arg else arg
        if is_blank(topic):
            kind = "an empty" if topic == "" else "a blank"
            raise UsageError(
                f"{flag} {_shown(arg)} has {kind} topic name: give a topic "
                f"(an empty value never means every topic)"
            )


def topic_regex_names_nothing(raw: str) -> bool:
    """True when a kafka-topics ``--topic`` value, read as the Apache tool reads it (trimmed,
    ``,`` as ``|``, spaces removed, surrounding quotes stripped), is a regex whose every
    alternative is empty: ``''``, ``' '``, ``','``, ``'""'``. Such a regex matches no topic."""
    pattern = raw.strip().replace(",", "|").replace(" ", "").strip("\"'")
    return all(alternative == "" for alternative in pattern.split("|"))


def check_topic_regex(raw: str, action: str) -> None:
    """``kafka-topics --alter`` and ``--delete`` refuse a ``--topic`` that names no topic. (The
    Apache tool changes nothing and exits 0 for an empty one; an unset variable in a script
    deserves an error, not a silent success.)"""
    if topic_regex_names_nothing(raw):
        kind = "is empty" if raw == "" else "is blank" if is_blank(raw) else "has only empty alternatives"
        raise UsageError(
            f"--topic {_shown(raw)} {kind}: it names no topic to {action} "
            f"(an empty value never means every topic)"
        )


def check_backup_dir(value: str | None) -> None:
    """``--backup-dir``: an empty or blank value is refused (it never means the default
    directory, which an unset shell variable would otherwise choose silently)."""
    if value is not None and is_blank(value):
        kind = "empty" if value == "" else "blank"
        raise UsageError(
            f"--backup-dir {_shown(value)} is {kind}: give a directory (an empty value never means "
            "the default one)"
        )
