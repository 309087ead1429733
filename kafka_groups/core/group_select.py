"""Which groups a command acts on: ``--group``, ``--all-groups``, ``--group-pattern`` and
``--exclude-group``, in one place for describe, reset and delete of both group tools.

Rules (documented in the README and ``docs/json.md``):

- ``--group-pattern REGEX`` (repeatable) selects every listed group whose id the pattern
  matches *whole* (Python ``re.fullmatch``, as Java's ``Pattern.matches``: ``orders`` does not
  select ``orders-v2``; write ``orders.*`` for that). Several patterns select the union.
  It stands instead of ``--group`` and ``--all-groups``: combining them is a usage error.
- ``--exclude-group REGEX`` (repeatable) removes the groups any of its patterns matches whole
  from whatever ``--group``, ``--all-groups`` or ``--group-pattern`` selected; alone it is
  a usage error (it never means "every group but these").
- Empty or blank patterns are usage errors (an unset shell variable must not select, or
  spare, every group); a pattern Python's ``re`` cannot compile is one line naming the
  position.
- Selection keeps the order of the source: the ids as given for ``--group``, the broker's
  listing order otherwise.

Pure code: the caller lists the group ids (only when :attr:`GroupSelection.lists` says so).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kafka_groups.errors import NotFoundError, UsageError

PATTERN_FLAG = "--group-pattern"
EXCLUDE_FLAG = "--exclude-group"


def compile_pattern(raw: str, flag: str) -> re.Pattern[str]:
    """One pattern, checked: blank and invalid patterns are usage errors naming the flag."""
    if not raw.strip():
        kind = "empty" if raw == "" else "blank"
        raise UsageError(
            f"{flag} {raw!r} is {kind}: give a regular expression (an empty value never means every group)"
        )
    try:
        return re.compile(raw)
    except re.error as exc:
        where = f" at position {exc.pos}" if exc.pos is not None else ""
        raise UsageError(f"{flag} {raw!r} is not a valid regular expression: {exc.msg}{where}") from None


@dataclass(frozen=True)
class GroupSelection:
    """The group options of one command, as given."""

    groups: tuple[str, ...] = ()
    all_groups: bool = False
    patterns: tuple[str, ...] = ()
    excludes: tuple[str, ...] = ()

    def check(self, action: str) -> None:
        """Usage errors, before anything is contacted. ``action``: ``describe``, ``delete``,
        ``reset-offsets`` (it appears in the Apache tool's message when nothing is given)."""
        if not (self.groups or self.all_groups or self.patterns):
            if self.excludes:
                raise UsageError(
                    f"{EXCLUDE_FLAG} only narrows a selection: give --group, --all-groups or {PATTERN_FLAG}"
                )
            raise UsageError(f"Option [{action}] takes one of these options: [all-groups], [group]")
        if self.groups and self.all_groups:
            raise UsageError('Option "[group]" can\'t be used with option "[all-groups]"')
        if self.patterns and (self.groups or self.all_groups):
            other = "group" if self.groups else "all-groups"
            raise UsageError(f'Option "[group-pattern]" can\'t be used with option "[{other}]"')
        self.compiled()

    def compiled(self) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
        return (
            [compile_pattern(p, PATTERN_FLAG) for p in self.patterns],
            [compile_pattern(p, EXCLUDE_FLAG) for p in self.excludes],
        )

    @property
    def lists(self) -> bool:
        """Whether the selection needs the cluster's list of group ids."""
        return self.all_groups or bool(self.patterns)

    @property
    def many(self) -> bool:
        """More than the groups named one by one (a spinner, the summary of a delete)."""
        return self.lists or len(self.groups) > 1

    def pick(self, listed: Iterable[str] = ()) -> list[str]:
        """The ids selected, from ``listed`` (the cluster's ids) when :attr:`lists`."""
        include, exclude = self.compiled()
        if self.groups:  # as given, repeats included (the streams tool describes each)
            chosen = list(self.groups)
        elif self.all_groups:
            chosen = list(listed)
        else:
            chosen = [g for g in dict.fromkeys(listed) if any(p.fullmatch(g) for p in include)]
        return [g for g in chosen if not any(p.fullmatch(g) for p in exclude)]

    def require_some(self, ids: Sequence[str], kind: str = "consumer group") -> None:
        """A pattern or an exclusion that leaves nothing is refused like a missing group:
        one line, nothing written."""
        if ids or not (self.patterns or self.excludes):
            return
        if self.patterns:
            shown = ", ".join(repr(p) for p in self.patterns)
            message = f"No {kind} matches {PATTERN_FLAG} {shown}"
        else:
            message = f"Every {kind} selected is excluded by {EXCLUDE_FLAG}"
        if self.excludes and self.patterns:
            message += f" (after {EXCLUDE_FLAG})"
        raise NotFoundError(message + ".")


def announce_matches(selection: GroupSelection, ids: Sequence[str], kind: str) -> str | None:
    """The line a destructive command prints before it sends anything, when the groups
    were chosen by pattern or narrowed by exclusion (the user never typed their names)."""
    if not (selection.patterns or selection.excludes):
        return None
    # Sorted: the cluster lists groups in no stable order, and a reader scans for a name.
    return f"Selected {len(ids)} {kind}(s): " + ", ".join(sorted(ids))
