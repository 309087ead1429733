"""Which cluster a write goes to, said before anything is written, and the confirmation a
protected cluster asks for.

* Before anything is contacted (:func:`refuse_unconfirmable`, from ``cluster_session(...,
  writes=True)``): a write to a cluster marked ``protected`` in clusters.toml, with no terminal to
  ask on and no ``--yes``, is refused (exit 2).
* Before the backup, or before what a write without a backup announces (:func:`name_target`):
  one line on stderr names the cluster -- its name when one was used, its bootstrap servers and
  its cluster id, taken from the metadata the command's clients already read -- and, for a
  protected cluster on a terminal without ``--yes``, the operator types the cluster's name.
  kafka-topics keeps the Apache tool's stderr when its command line names the servers and stderr
  is piped (:func:`quiet_target`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from kafka_groups.errors import UsageError
from kafka_groups.escape import escape_controls

if TYPE_CHECKING:
    from kafka_groups.access.cluster import KafkaAccess
    from kafka_groups.settings import ConnectionSettings


class NotConfirmed(UsageError):
    """A write to a protected cluster that was not confirmed: nothing was sent."""


def can_ask() -> bool:
    """Whether the operator can be asked: the question goes to stderr, the answer comes on stdin."""
    return all(stream is not None and stream.isatty() for stream in (sys.stdin, sys.stderr))


def refuse_unconfirmable(settings: ConnectionSettings) -> None:
    """Before anything is contacted: a protected cluster's write needs a terminal or ``--yes``."""
    if settings.protected and not settings.assume_yes and not can_ask():
        raise NotConfirmed(
            f"cluster '{escape_controls(settings.cluster_name or '')}' is protected: a write to it needs "
            "--yes where there is no terminal to confirm on; nothing was sent"
        )


def quiet_target(settings: ConnectionSettings) -> bool:
    """The servers are spelled on the command line, no name was used and no one reads stderr
    on a terminal: the command already says where it writes."""
    stderr = sys.stderr
    return (
        settings.servers_typed
        and settings.cluster_name is None
        and not (stderr is not None and stderr.isatty())
    )


def target_line(settings: ConnectionSettings, cluster_id: str | None) -> str:
    where = f"cluster '{settings.cluster_name}'" if settings.cluster_name else "the cluster"
    known = f"cluster id {cluster_id}" if cluster_id else "cluster id not given by the brokers"
    return escape_controls(f"Writing to {where} at {settings.bootstrap_servers} ({known})")


def name_target(access: KafkaAccess, apache_stderr: bool = False) -> None:
    """Say which cluster the command writes to (once per command) and, for a protected cluster
    on a terminal, have the operator type its name. Refuses, with nothing sent, otherwise.

    ``apache_stderr``: the command's stderr is the Apache tool's, byte for byte, for scripts
    (kafka-topics, whose writes print no backup line). There the line is left out when the
    command line itself names the servers (``--bootstrap-server``, no cluster name) and stderr is
    not a terminal; a cluster that comes from a name or from the environment is always said."""
    if access.write_target_named:
        return
    settings = access.settings
    from kafka_groups.commands.guard import announce
    from kafka_groups.render import ask

    if not (apache_stderr and quiet_target(settings)):
        announce(target_line(settings, access.cluster_id()))
    if settings.protected and not settings.assume_yes:
        name = settings.cluster_name or ""
        refuse_unconfirmable(settings)
        typed = ask(f"Cluster '{escape_controls(name)}' is protected. Type its name to write to it: ")
        if typed is None or typed.strip() != name:
            raise NotConfirmed(
                f"the name typed was not '{escape_controls(name)}': nothing was written to the cluster"
            )
    access.write_target_named = True
