"""Whether a regular expression compiles under RE2J, the regex library of the Kafka broker.

KIP-848 consumers may subscribe with a regular expression that the group coordinator
compiles with RE2J (``com.google.re2j.Pattern.compile``, Perl-like syntax, Unicode groups).
``kafka-consumer-groups --validate-regex`` tells whether a pattern would be accepted; it
must answer as the broker would, so this is not Python's ``re`` (which accepts lookaround
and backreferences, and refuses things RE2J accepts). The rules below follow RE2J 1.8 (the
version Kafka 4.3 ships), and the refusal texts are RE2J's own descriptions, word for word.

Only syntax is checked, as ``Pattern.compile`` does: the parser's stack is modelled by the
kind of each entry (an expression, an open group, an alternation bar), which is all that
decides acceptance. Pure code: no I/O.
"""

from __future__ import annotations

# RE2J's error descriptions (PatternSyntaxException.getDescription()).
INTERNAL_ERROR = "regexp/syntax: internal error"
INVALID_CHAR_RANGE = "invalid character class range"
INVALID_ESCAPE = "invalid escape sequence"
INVALID_NAMED_CAPTURE = "invalid named capture"
INVALID_PERL_OP = "invalid or unsupported Perl syntax"
INVALID_REPEAT_OP = "invalid nested repetition operator"
INVALID_REPEAT_SIZE = "invalid repeat count"
MISSING_BRACKET = "missing closing ]"
MISSING_PAREN = "missing closing )"
MISSING_REPEAT_ARGUMENT = "missing argument to repetition operator"
TRAILING_BACKSLASH = "trailing backslash at end of expression"
DUPLICATE_NAMED_CAPTURE = "duplicate capture group name"

MAX_REPEAT = 1000


def _names(words: str) -> frozenset[str]:
    return frozenset(words.split(" "))


# The Unicode classes RE2J 1.8 knows for \p{..} (its UnicodeTables.CATEGORIES and SCRIPTS,
# read from re2j-1.8.jar), plus "Any". Names are case-sensitive.
UNICODE_CATEGORIES = _names(
    "C Cc Cf Co Cs L Ll Lm Lo Lt Lu M Mc Me Mn N Nd Nl No P Pc Pd Pe Pf Pi Po Ps S Sc Sk Sm So Z Zl Zp Zs"
)
UNICODE_SCRIPTS = _names(
    "Arabic Armenian Avestan Balinese Bamum Batak Bengali Bopomofo Brahmi Braille Buginese "
    "Buhid Canadian_Aboriginal Carian Cham Cherokee Common Coptic Cuneiform Cypriot Cyrillic "
    "Deseret Devanagari Egyptian_Hieroglyphs Ethiopic Georgian Glagolitic Gothic Greek "
    "Gujarati Gurmukhi Han Hangul Hanunoo Hebrew Hiragana Imperial_Aramaic Inherited "
    "Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kayah_Li "
    "Kharoshthi Khmer Lao Latin Lepcha Limbu Linear_B Lisu Lycian Lydian Malayalam Mandaic "
    "Meetei_Mayek Mongolian Myanmar New_Tai_Lue Nko Ogham Ol_Chiki Old_Italic Old_Persian "
    "Old_South_Arabian Old_Turkic Oriya Osmanya Phags_Pa Phoenician Rejang Runic Samaritan "
    "Saurashtra Shavian Sinhala Sundanese Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham "
    "Tai_Viet Tamil Telugu Thaana Thai Tibetan Tifinagh Ugaritic Unknown Vai Yi"
)
_POSIX_NAMES = _names("alnum alpha ascii blank cntrl digit graph lower print punct space upper word xdigit")
POSIX_CLASSES = frozenset(f"[:{neg}{name}:]" for name in _POSIX_NAMES for neg in ("", "^"))

_PERL_CLASSES = frozenset("dDsSwW")
_FLAGS = frozenset("imsU")
_C_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_OCTAL = frozenset("01234567")
_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}
_MAX_RUNE = 0x10FFFF

# The kinds of entries on the parser's stack.
_EXPR, _OPEN, _BAR = "expr", "open", "bar"


class Re2jSyntaxError(ValueError):
    """The pattern does not compile; ``description`` is RE2J's text for the reason."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


def re2j_error(pattern: str) -> str | None:
    """RE2J's description of why ``pattern`` does not compile, or None when it compiles."""
    try:
        _Parser(pattern).parse()
    except Re2jSyntaxError as refused:
        return refused.description
    return None


def validate_regex_report(pattern: str) -> str:
    """The line ``kafka-consumer-groups --validate-regex`` prints (the Apache tool's words)."""
    error = re2j_error(pattern)
    if error is None:
        return f"The regular expression `{pattern}` is valid."
    return f"The regular expression `{pattern}` is invalid: {error}."


def _isalnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


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
                i = self._char_class(i)
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
            if not name or not all(_isalnum(c) or c == "_" for c in name):
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
                return self._unicode_class(i)
            if c in _PERL_CLASSES:
                self.stack.append(_EXPR)
                return i + 2
        _, after = self._escape(i)
        self.stack.append(_EXPR)
        return after

    def _escape(self, i: int) -> tuple[int, int]:
        """A single-character escape at ``i``: (code point, index after)."""
        s, n = self.s, self.n
        j = i + 1
        if j >= n:
            raise Re2jSyntaxError(TRAILING_BACKSLASH)
        c = s[j]
        j += 1
        if c in "1234567" and not (j < n and s[j] in _OCTAL):
            raise Re2jSyntaxError(INVALID_ESCAPE)  # a backreference: not supported
        if c in _OCTAL:
            value = int(c)
            for _ in range(2):
                if j < n and s[j] in _OCTAL:
                    value = value * 8 + int(s[j])
                    j += 1
            return value, j
        if c == "x":
            return self._hex_escape(j)
        if c in _C_ESCAPES:
            return _C_ESCAPES[c], j
        if not _isalnum(c):  # escaped punctuation (and any non-ASCII character) is itself
            return ord(c), j
        raise Re2jSyntaxError(INVALID_ESCAPE)

    def _hex_escape(self, j: int) -> tuple[int, int]:
        """``\\xHH`` or ``\\x{H...}``, with ``j`` just after the x."""
        s, n = self.s, self.n
        if j < n and s[j] == "{":
            j += 1
            value, digits = 0, 0
            while j < n and s[j] != "}":
                if s[j] not in _HEX:
                    raise Re2jSyntaxError(INVALID_ESCAPE)
                value = value * 16 + _HEX[s[j]]
                if value > _MAX_RUNE:
                    raise Re2jSyntaxError(INVALID_ESCAPE)
                digits += 1
                j += 1
            if j >= n or digits == 0:
                raise Re2jSyntaxError(INVALID_ESCAPE)
            return value, j + 1
        if j + 1 < n and s[j] in _HEX and s[j + 1] in _HEX:
            return _HEX[s[j]] * 16 + _HEX[s[j + 1]], j + 2
        raise Re2jSyntaxError(INVALID_ESCAPE)

    def _unicode_class(self, i: int) -> int:
        """``\\pX``, ``\\p{Name}``, ``\\P..`` or ``\\p{^Name}`` at ``i``: the index after."""
        s, n = self.s, self.n
        j = i + 2
        if j < n and s[j] == "{":
            close = s.find("}", j)
            if close < 0:
                raise Re2jSyntaxError(INVALID_CHAR_RANGE)
            name, after = s[j + 1 : close], close + 1
        else:
            name, after = s[j : j + 1], j + 1
        if name.startswith("^"):
            name = name[1:]
        if name != "Any" and name not in UNICODE_CATEGORIES and name not in UNICODE_SCRIPTS:
            raise Re2jSyntaxError(INVALID_CHAR_RANGE)
        return after

    def _char_class(self, i: int) -> int:
        """``[...]`` at ``i``: the index after the closing bracket."""
        s, n = self.s, self.n
        j = i + 1
        if j < n and s[j] == "^":
            j += 1
        first = True  # ] is a literal as the first character
        while j >= n or s[j] != "]" or first:
            first = False
            if n - j > 2 and s[j] == "[" and s[j + 1] == ":":
                close = s.find(":]", j)  # RE2J searches from the [ (so [:] is a name)
                if close >= 0:
                    if s[j : close + 2] not in POSIX_CLASSES:
                        raise Re2jSyntaxError(INVALID_CHAR_RANGE)
                    j = close + 2
                    continue
            if j + 1 < n and s[j] == "\\" and s[j + 1] in "pP":
                j = self._unicode_class(j)
                continue
            if j + 1 < n and s[j] == "\\" and s[j + 1] in _PERL_CLASSES:
                j += 2
                continue
            low, j = self._class_char(j)
            if n - j >= 2 and s[j] == "-" and s[j + 1] != "]":
                high, j = self._class_char(j + 1)
                if high < low:
                    raise Re2jSyntaxError(INVALID_CHAR_RANGE)
        return j + 1

    def _class_char(self, j: int) -> tuple[int, int]:
        if j >= self.n:
            raise Re2jSyntaxError(MISSING_BRACKET)
        if self.s[j] == "\\":
            return self._escape(j)
        return ord(self.s[j]), j + 1
