"""Whether a regular expression compiles under RE2J, the regex library of the Kafka broker.

KIP-848 consumers may subscribe with a regular expression that the group coordinator
compiles with RE2J (``com.google.re2j.Pattern.compile``, Perl-like syntax, Unicode groups).
``kafka-consumer-groups --validate-regex`` tells whether a pattern would be accepted; it
must answer as the broker would, so this is not Python's ``re`` (which accepts lookaround
and backreferences, and refuses things RE2J accepts). The rules below follow RE2J 1.8 (the
version Kafka 4.3 ships), and the refusal texts are RE2J's own descriptions, word for word.

Only syntax is checked, as ``Pattern.compile`` does: the parser's stack is modelled by the
kind of each entry (an expression, an open group, an alternation bar), which is all that
decides acceptance. Escapes and character classes are read by
:mod:`kafka_groups.core.re2j_chars`. Pure code: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_groups.core.re2j_chars import (
    DUPLICATE_NAMED_CAPTURE,
    INTERNAL_ERROR,
    INVALID_CHAR_RANGE,
    INVALID_ESCAPE,
    INVALID_NAMED_CAPTURE,
    INVALID_PERL_OP,
    INVALID_REPEAT_OP,
    INVALID_REPEAT_SIZE,
    MAX_REPEAT,
    MISSING_BRACKET,
    MISSING_PAREN,
    MISSING_REPEAT_ARGUMENT,
    PERL_CLASSES,
    POSIX_CLASSES,
    TRAILING_BACKSLASH,
    UNICODE_CATEGORIES,
    UNICODE_SCRIPTS,
    Re2jSyntaxError,
    char_class,
    escape,
    is_ascii_alnum,
    unicode_class,
)

# The error texts, the class tables and the exception are part of this module's interface.
__all__ = [
    "DUPLICATE_NAMED_CAPTURE",
    "INTERNAL_ERROR",
    "INVALID_CHAR_RANGE",
    "INVALID_ESCAPE",
    "INVALID_NAMED_CAPTURE",
    "INVALID_PERL_OP",
    "INVALID_REPEAT_OP",
    "INVALID_REPEAT_SIZE",
    "MISSING_BRACKET",
    "MISSING_PAREN",
    "MISSING_REPEAT_ARGUMENT",
    "POSIX_CLASSES",
    "TRAILING_BACKSLASH",
    "UNICODE_CATEGORIES",
    "UNICODE_SCRIPTS",
    "Re2jSyntaxError",
    "RegexVerdict",
    "re2j_error",
    "validate_regex_report",
]

_FLAGS = frozenset("imsU")

# The kinds of entries on the parser's stack.
_EXPR, _OPEN, _BAR = "expr", "open", "bar"


def re2j_error(pattern: str) -> str | None:
    """RE2J's description of why ``pattern`` does not compile, or None when it compiles."""
    try:
        _Parser(pattern).parse()
    except Re2jSyntaxError as refused:
        return refused.description
    return None


@dataclass(frozen=True)
class RegexVerdict:
    """The answer of ``--validate-regex``: the pattern and RE2J's reason, None when valid."""

    regex: str
    error: str | None


def validate_regex_report(pattern: str) -> str:
    """The line ``kafka-consumer-groups --validate-regex`` prints (the Apache tool's words)."""
    error = re2j_error(pattern)
    if error is None:
        return f"The regular expression `{pattern}` is valid."
    return f"The regular expression `{pattern}` is invalid: {error}."


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.s = pattern
        self.n = len(pattern)
        self.stack: list[str] = []
        self.names: set[str] = set()

    # The stack: only the kinds matter for whether the pattern compiles.
    def _collapse(self) -> None:
        """Replace the entries above the nearest open group or bar by one expression (RE2J's
        concat and alternate both do this, pushing an empty expression when there are none)."""
        while self.stack and self.stack[-1] == _EXPR:
            self.stack.pop()
        self.stack.append(_EXPR)

    def _swap_bar(self) -> bool:
        """When a bar lies just below the top expression, move it on top (the expression joins
        the alternation's branches)."""
        if len(self.stack) >= 2 and self.stack[-2] == _BAR:
            self.stack[-2], self.stack[-1] = self.stack[-1], self.stack[-2]
            return True
        return False

    def _close_alternation(self) -> None:
        self._collapse()
        if self._swap_bar():
            self.stack.pop()
        self._collapse()

    def _repeat_operand(self) -> None:
        if not self.stack or self.stack[-1] != _EXPR:
            raise Re2jSyntaxError(MISSING_REPEAT_ARGUMENT)

    def parse(self) -> None:
        s, n = self.s, self.n
        i = 0
        last_was_repeat = False
        while i < n:
            repeat = False
            c = s[i]
            if c == "(":
                if s.startswith("(?", i):
                    i = self._group_flags(i)
                else:
                    self.stack.append(_OPEN)
                    i += 1
            elif c == "|":
                self._collapse()
                if not self._swap_bar():
                    self.stack.append(_BAR)
                i += 1
            elif c == ")":
                self._close_alternation()
                if len(self.stack) < 2:
                    raise Re2jSyntaxError(INTERNAL_ERROR)
                self.stack.pop()
                if self.stack.pop() != _OPEN:
                    raise Re2jSyntaxError(MISSING_PAREN)
                self.stack.append(_EXPR)
                i += 1
            elif c == "[":
                i = char_class(self.s, i)
                self.stack.append(_EXPR)
            elif c in "*+?":
                i = self._repetition(i + 1, last_was_repeat)
                repeat = True
            elif c == "{":
                bounds = self._repeat_bounds(i)
                if bounds is None:  # not a repetition: a literal {
                    self.stack.append(_EXPR)
                    i += 1
                    # RE2J still counts it as a repetition operator for the next token: it
                    # refuses ``{*`` and ``x{{2}`` as nested repetitions.
                    repeat = True
                else:
                    low, high, after = bounds
                    if low > MAX_REPEAT or high > MAX_REPEAT or (high >= 0 and low > high):
                        raise Re2jSyntaxError(INVALID_REPEAT_SIZE)
                    i = self._repetition(after, last_was_repeat)
                    repeat = True
            elif c == "\\":
                i = self._escape_atom(i)
            else:  # a literal, ^, $ or .
                self.stack.append(_EXPR)
                i += 1
            last_was_repeat = repeat
        self._close_alternation()
        if len(self.stack) != 1:
            raise Re2jSyntaxError(MISSING_PAREN)

    def _repetition(self, after: int, last_was_repeat: bool) -> int:
        """A repetition operator ends just before ``after``; an optional ``?`` (non-greedy)
        may follow. Perl syntax forbids stacking operators (``a**``, ``a{2}*``, ``a++``)."""
        if after < self.n and self.s[after] == "?":
            after += 1
        if last_was_repeat:
            raise Re2jSyntaxError(INVALID_REPEAT_OP)
        self._repeat_operand()
        return after

    def _number(self, i: int) -> tuple[int, int] | None:
        """Decimal digits at ``i`` without a leading zero: (value, index after)."""
        s, n = self.s, self.n
        if i >= n or not ("0" <= s[i] <= "9"):
            return None
        if i + 1 < n and s[i] == "0" and "0" <= s[i + 1] <= "9":
            return None
        j = i
        while j < n and "0" <= s[j] <= "9":
            j += 1
        return int(s[i:j]), j

    def _repeat_bounds(self, i: int) -> tuple[int, int, int] | None:
        """``{n}``, ``{n,}`` or ``{n,m}`` at ``i``: (min, max or -1, index after); None when
        the text is not one (then ``{`` is a literal)."""
        low = self._number(i + 1)
        if low is None:
            return None
        low_value, j = low
        if j >= self.n:
            return None
        high_value = low_value
        if self.s[j] == ",":
            j += 1
            if j >= self.n:
                return None
            if self.s[j] == "}":
                high_value = -1
            else:
                high = self._number(j)
                if high is None:
                    return None
                high_value, j = high
        if j >= self.n or self.s[j] != "}":
            return None
        return low_value, high_value, j + 1

    def _group_flags(self, i: int) -> int:
        """``(?`` at ``i``: a named group, a non-capturing group or a change of flags."""
        s, n = self.s, self.n
        if s.startswith("(?P<", i) or s.startswith("(?<", i):
            begin = i + (4 if s[i + 2] == "P" else 3)
            end = s.find(">", i)
            if end < 0:
                raise Re2jSyntaxError(INVALID_NAMED_CAPTURE)
            name = s[begin:end]
            if not name or not all(is_ascii_alnum(c) or c == "_" for c in name):
                raise Re2jSyntaxError(INVALID_NAMED_CAPTURE)
            if name in self.names:
                raise Re2jSyntaxError(DUPLICATE_NAMED_CAPTURE)
            self.names.add(name)
            self.stack.append(_OPEN)
            return end + 1
        j = i + 2
        negated = False
        saw_flag = False
        while j < n:
            c = s[j]
            j += 1
            if c in _FLAGS:
                saw_flag = True
            elif c == "-" and not negated:
                negated = True
                saw_flag = False
            elif c in ":)":
                if negated and not saw_flag:
                    break
                if c == ":":
                    self.stack.append(_OPEN)
                return j
            else:
                break
        raise Re2jSyntaxError(INVALID_PERL_OP)

    def _escape_atom(self, i: int) -> int:
        """A backslash sequence outside a class at ``i``."""
        s, n = self.s, self.n
        if i + 1 < n:
            c = s[i + 1]
            if c in "AbBz":
                self.stack.append(_EXPR)
                return i + 2
            if c == "C":  # any byte: not supported
                raise Re2jSyntaxError(INVALID_ESCAPE)
            if c == "Q":  # \Q...\E: literal text (to the end when there is no \E)
                end = s.find("\\E", i + 2)
                stop = n if end < 0 else end
                self.stack.extend(_EXPR for _ in range(stop - (i + 2)))
                return n if end < 0 else end + 2
            if c in "pP":
                self.stack.append(_EXPR)
                return unicode_class(self.s, i)
            if c in PERL_CLASSES:
                self.stack.append(_EXPR)
                return i + 2
        _, after = escape(self.s, i)
        self.stack.append(_EXPR)
        return after
