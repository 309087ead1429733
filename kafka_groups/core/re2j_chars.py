"""The character level of RE2J's syntax: escapes, character classes and Unicode class names.

:mod:`kafka_groups.core.re2j` parses the structure of a pattern (groups, alternation,
repetition); each function here reads one escape or one ``[...]`` class at an index of the
pattern and returns where it ends, or raises :class:`Re2jSyntaxError` with RE2J's words. These
do not touch the parser's stack: a class or an escape is always one expression to it. Pure
code: no I/O.
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

PERL_CLASSES = frozenset("dDsSwW")
_C_ESCAPES = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}
_OCTAL = frozenset("01234567")
_HEX = {c: int(c, 16) for c in "0123456789abcdefABCDEF"}
_MAX_RUNE = 0x10FFFF


class Re2jSyntaxError(ValueError):
    """The pattern does not compile; ``description`` is RE2J's text for the reason."""

    def __init__(self, description: str) -> None:
        super().__init__(description)
        self.description = description


def is_ascii_alnum(c: str) -> bool:
    return c.isascii() and c.isalnum()


def escape(s: str, i: int) -> tuple[int, int]:
    """A single-character escape at ``i``: (code point, index after)."""
    n = len(s)
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
        return hex_escape(s, j)
    if c in _C_ESCAPES:
        return _C_ESCAPES[c], j
    if not is_ascii_alnum(c):  # escaped punctuation (and any non-ASCII character) is itself
        return ord(c), j
    raise Re2jSyntaxError(INVALID_ESCAPE)


def hex_escape(s: str, j: int) -> tuple[int, int]:
    """``\\xHH`` or ``\\x{H...}``, with ``j`` just after the x."""
    n = len(s)
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


def unicode_class(s: str, i: int) -> int:
    """``\\pX``, ``\\p{Name}``, ``\\P..`` or ``\\p{^Name}`` at ``i``: the index after."""
    n = len(s)
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


def char_class(s: str, i: int) -> int:
    """``[...]`` at ``i``: the index after the closing bracket."""
    n = len(s)
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
            j = unicode_class(s, j)
            continue
        if j + 1 < n and s[j] == "\\" and s[j + 1] in PERL_CLASSES:
            j += 2
            continue
        low, j = class_char(s, j)
        if n - j >= 2 and s[j] == "-" and s[j + 1] != "]":
            high, j = class_char(s, j + 1)
            if high < low:
                raise Re2jSyntaxError(INVALID_CHAR_RANGE)
    return j + 1


def class_char(s: str, j: int) -> tuple[int, int]:
    if j >= len(s):
        raise Re2jSyntaxError(MISSING_BRACKET)
    if s[j] == "\\":
        return escape(s, j)
    return ord(s[j]), j + 1
