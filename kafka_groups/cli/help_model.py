"""The shape of the flag form's ``--help``: sections of (flag, description) entries with one
example each, and the options that are ours. The texts are in
:mod:`kafka_groups.cli.help_groups` and :mod:`kafka_groups.cli.help_topics`; they are laid
out by :mod:`kafka_groups.cli.flag_help`.
"""

from __future__ import annotations

from typing import NamedTuple

# (flag with its argument, description)
Entry = tuple[str, str]


# Named tuples, not dataclasses: help loads no dataclasses (and its inspect) at start-up.
class Section(NamedTuple):
    title: str
    entries: tuple[Entry, ...]
    example: str = ""


class ToolHelp(NamedTuple):
    about: str
    sections: tuple[Section, ...]
    ours: tuple[Entry, ...]
    subcommands: tuple[str, ...]
