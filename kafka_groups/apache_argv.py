"""Reading the Apache tools' flag form the way jopt-simple reads it.

The Apache tools parse with jopt-simple (abbreviations off). Scripts written for them rely
on its rules, so these are kept: ``-name`` equals ``--name``; ``--name=value`` works; an
option that requires a value takes the next token whatever it looks like; an option with
an optional value takes the next token only when it does not look like an option; tokens
that are not options are ignored; ``--`` ends option parsing; an option may be repeated.
Pure code: no I/O.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from kafka_groups.errors import UsageError

_LONG = re.compile(r"[+-]?[0-9]+")


class UnknownOptionError(UsageError):
    """An option the tool does not know; ``hint`` names the closest one it does, if any."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


def closest(word: str, choices: Iterable[str]) -> str | None:
    """The choice a mistyped ``word`` most likely meant (a prefix of exactly one choice, or the
    nearest by spelling), or None when nothing is close."""
    names = sorted(set(choices))
    prefixed = [c for c in names if word and c.startswith(word)]
    if len(prefixed) == 1:
        return prefixed[0]
    import difflib  # only for a mistyped option

    near = difflib.get_close_matches(word, names, n=1, cutoff=0.7)
    return near[0] if near else None


def did_you_mean(word: str, choices: Iterable[str], prefix: str = "--") -> str:
    """`` (did you mean --x?)`` for the closest choice, or an empty string."""
    best = closest(word, choices)
    return f" (did you mean {prefix}{best}?)" if best else ""


class Arg(enum.Enum):
    NONE = "none"
    REQUIRED = "required"
    OPTIONAL = "optional"


@dataclass(frozen=True)
class Opt:
    """One option of a tool's flag form."""

    name: str
    arg: Arg = Arg.NONE
    available_if: tuple[str, ...] = ()


@dataclass
class Parsed:
    """The options given, in command-line order, each with its values."""

    values: dict[str, list[str | None]] = field(default_factory=dict)

    def has(self, name: str) -> bool:
        return name in self.values

    def all(self, name: str) -> list[str]:
        return [v for v in self.values.get(name, []) if v is not None]

    def one(self, name: str) -> str | None:
        """The single value of an option; jopt-simple refuses a repeated one when it is used."""
        given = self.values.get(name, [])
        if len(given) > 1:
            raise UsageError(f"Found multiple arguments for option {name}, but you asked for only one")
        return given[0] if given else None

    def number(self, name: str, default: int) -> int:
        raw = self.one(name)
        if raw is None:
            return default
        return parse_long(raw, name)

    def present(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if n in self.values]


def parse_long(raw: str | None, name: str) -> int:
    """A ``Long`` option value as jopt-simple converts it (no spaces, no underscores, within
    Java's long range)."""
    if raw is None or not _LONG.fullmatch(raw) or not -(2**63) <= int(raw) < 2**63:
        raise UsageError(f"Cannot parse argument '{raw}' of option {name}")
    return int(raw)


def _looks_like_option(token: str) -> bool:
    return token.startswith("-") and token not in ("-", "--")


def parse(argv: Sequence[str], options: Iterable[Opt]) -> Parsed:
    """Parse ``argv`` with jopt-simple's rules; errors carry jopt-simple's messages."""
    specs = {o.name: o for o in options}
    parsed = Parsed()
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            break
        if not _looks_like_option(token):
            continue
        body = token[2:] if token.startswith("--") else token[1:]
        name, eq, inline = body.partition("=")
        spec = specs.get(name)
        if spec is None:
            # Our short -o is no name to suggest; the others are offered as --name.
            hint = did_you_mean(name, (n for n in specs if len(n) > 1))
            raise UnknownOptionError(f"{name} is not a recognized option", hint)
        value: str | None = None
        if spec.arg is Arg.NONE:
            if eq:
                raise UsageError(f"Option {name} does not take an argument")
        elif eq:
            value = inline
        elif spec.arg is Arg.REQUIRED:
            if i >= len(argv):
                raise UsageError(f"Option {name} requires an argument")
            value = argv[i]
            i += 1
        elif i < len(argv) and not _looks_like_option(argv[i]):
            value = argv[i]
            i += 1
        parsed.values.setdefault(name, []).append(value)
    if "o" in parsed.values:  # -o is our short form of --output
        parsed.values.setdefault("output", []).extend(parsed.values.pop("o"))
    for name in parsed.values:
        need = specs[name].available_if
        if need and not any(n in parsed.values for n in need):
            raise UsageError(f"Option(s) [{name}] are unavailable given other options on the command line")
    return parsed


def is_flag_form(argv: Sequence[str], subcommands: Iterable[str]) -> bool:
    """True when argv is in the Apache flag form rather than our subcommand form."""
    names = set(subcommands)
    for token in argv:
        if token in ("--help", "-h", "--version", "--install-completion", "--show-completion"):
            continue
        return token not in names
    return False
