"""How the access layer's errors name what they lack: partitions, coordinators, the ACLs a
refused request takes, confluent-kafka's error text."""

from __future__ import annotations

from typing import TYPE_CHECKING

from kafka_groups.access.decode import _protocol_error
from kafka_groups.access.retry import Deadline, Unavailable, retriable_code
from kafka_groups.core.kafka_errors import AUTHORIZATION_RESOURCES, denied
from kafka_groups.errors import ClusterError

if TYPE_CHECKING:
    from kafka_groups.core.describe import TopicPartition

_NAMED = 5  # partitions named in a message; the rest are counted


def _topic_denied(code: int | None, message: str, needs: str) -> str:
    """A kafka-topics refusal in the Apache wording, with the ACL it lacks when it is one."""
    if code not in AUTHORIZATION_RESOURCES:
        return message
    return f"{message.removeprefix('Broker: ').rstrip('.')}: the principal needs {needs}"


def _raise_if_retriable(group_id: str, code: int) -> None:
    """A group-level error that passes by itself (its coordinator is loading or moved)."""
    if retriable_code(code):
        raise Unavailable(_coordinator_of([group_id]), _protocol_error(code).name)


def _offsets_missing(failures: dict[tuple[str, TopicPartition], str]) -> str:
    """``the log end offsets of orders-0, orders-4``: what a log offset lookup lacks."""
    parts = []
    for kind in ("end", "start", "by-time"):
        names = sorted({f"{t}-{p}" for (k, (t, p)) in failures if k == kind})
        if names:
            shown = ", ".join(names[:_NAMED]) + (
                f" and {len(names) - _NAMED} more" if len(names) > _NAMED else ""
            )
            plural = "s" if len(names) > 1 else ""
            noun = (
                f"the offset{plural} by timestamp" if kind == "by-time" else f"the log {kind} offset{plural}"
            )
            parts.append(f"{noun} of {shown}")
    return " and ".join(parts)


def _common_reason(failures: dict[tuple[str, TopicPartition], str]) -> str:
    reasons = sorted(set(failures.values()), key=lambda r: (-list(failures.values()).count(r), r))
    return reasons[0] + (f"; {len(reasons) - 1} other reason(s)" if len(reasons) > 1 else "")


def _groups_named(group_ids: list[str]) -> str:
    shown = ", ".join(f"'{g}'" for g in group_ids[:_NAMED])
    more = f" and {len(group_ids) - _NAMED} more" if len(group_ids) > _NAMED else ""
    return f"group{'s' if len(group_ids) > 1 else ''} {shown}{more}"


def _coordinator_of(group_ids: list[str]) -> str:
    noun = "coordinator" if len(group_ids) == 1 else "coordinators"
    return f"the {noun} of {_groups_named(group_ids)}"


def _describe_groups_acl(group_ids: list[str]) -> dict[str, str]:
    named = f"group '{group_ids[0]}'" if len(group_ids) == 1 else "each group"
    return {"group": f"DESCRIBE on {named}"}


def _commit_acl(group: str, topic: str | None) -> dict[str, str]:
    """What committing offsets (a reset) takes: READ on the group and on each topic."""
    return {
        "group": f"READ on group '{group}'",
        "topic": f"READ on topic '{topic}'" if topic else "READ on the topics",
    }


def _topic_error(topic: str, code: int) -> ClusterError:
    info = _protocol_error(code)
    return ClusterError(f"describing topic '{topic}' failed: {info.message}")


def _error_text(exc: BaseException, needs: dict[str, str] | None = None) -> str:
    error = exc.args[0] if exc.args else exc
    code = error.code() if hasattr(error, "code") else None
    hint = denied(code, needs) if needs is not None else None
    if hint:
        return hint
    text = error.str() if hasattr(error, "str") else str(error)
    return str(text)


def _seconds_left(deadline: Deadline) -> float:
    """A confluent-kafka request timeout: what is left of the deadline (never 0, which it
    reads as "no timeout")."""
    return max(deadline.remaining_s(), 0.001)
