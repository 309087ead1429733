"""``--validate-regex``: the RE2J rules of the broker, checked offline.

APACHE_VERDICTS are recorded facts: each row is what the pinned Apache 4.3.1 tool printed,

    .venv/bin/python -m infra.kafka apache kafka-consumer-groups --validate-regex PATTERN

(always exit 0; no broker needed), read back as (pattern, RE2J's reason or None when valid).
The same verdicts were cross-checked against re2j-1.8.jar on about 130,000 random patterns
(tests/kafka/test_validate_regex.py keeps a smaller differential run).
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.core.re2j import (
    INVALID_NAMED_CAPTURE,
    INVALID_REPEAT_OP,
    MISSING_BRACKET,
    MISSING_PAREN,
    UNICODE_CATEGORIES,
    UNICODE_SCRIPTS,
    re2j_error,
    validate_regex_report,
)

APACHE_VERDICTS: list[tuple[str, str | None]] = [
    ("foo.*", None),
    ("orders-.*", None),
    ("^(orders|payments)\\.v[0-9]+$", None),
    ("[foo.*", "missing closing ]"),
    ("(foo", "missing closing )"),
    ("foo)", "regexp/syntax: internal error"),
    ("a**", "invalid nested repetition operator"),
    ("a++", "invalid nested repetition operator"),
    ("*abc", "missing argument to repetition operator"),
    ("a{1001}", "invalid repeat count"),
    ("a{2,1}", "invalid repeat count"),
    ("a{,5}", None),
    ("{*", "invalid nested repetition operator"),
    ("\\1", "invalid escape sequence"),
    ("(?=a)", "invalid or unsupported Perl syntax"),
    ("(?!a)", "invalid or unsupported Perl syntax"),
    ("(?<=a)b", "invalid named capture"),
    ("(?>a)", "invalid or unsupported Perl syntax"),
    ("(?P<name>a)", None),
    ("(?<name>a)", None),
    ("(?P<a>x)(?P<a>y)", "duplicate capture group name"),
    ("(?P<1a>x)", None),
    ("(?P=name)", "invalid or unsupported Perl syntax"),
    ("\\p{Latin}", None),
    ("\\p{Greek}+", None),
    ("\\p{latin}", "invalid character class range"),
    ("\\pL", None),
    ("\\p{Cn}", "invalid character class range"),
    ("[[:alpha:]]+", None),
    ("[[:word:]]", None),
    ("[[:foo:]]", "invalid character class range"),
    ("[z-a]", "invalid character class range"),
    ("[a-]", None),
    ("\\Z", "invalid escape sequence"),
    ("\\z", None),
    ("\\C", "invalid escape sequence"),
    ("\\d+\\s\\w", None),
    ("\\x{10FFFF}", None),
    ("\\x{110000}", "invalid escape sequence"),
    ("\\Q.*\\E", None),
    ("a\\", "trailing backslash at end of expression"),
    ("(?i)topic", None),
    ("(?i-)x", "invalid or unsupported Perl syntax"),
    ("(?x)a b", "invalid or unsupported Perl syntax"),
    ("a*?", None),
    ("a{2}*", "invalid nested repetition operator"),
    ("\\_", None),
    ("\\é", None),
]


@pytest.mark.parametrize(("pattern", "reason"), APACHE_VERDICTS)
def test_verdict_and_reason_are_the_apache_tools(pattern: str, reason: str | None) -> None:
    assert re2j_error(pattern) == reason


def test_the_recorded_table_covers_every_kind_of_refusal() -> None:
    reasons = {reason for _, reason in APACHE_VERDICTS if reason is not None}
    assert len(reasons) == 12
    assert sum(reason is None for _, reason in APACHE_VERDICTS) >= 15


@pytest.mark.parametrize(("pattern", "reason"), APACHE_VERDICTS[:6])
def test_report_line_is_the_apache_tools(pattern: str, reason: str | None) -> None:
    line = validate_regex_report(pattern)
    assert line.startswith(f"The regular expression `{pattern}` is ")
    assert line.endswith("is valid." if reason is None else f"is invalid: {reason}.")


_LITERAL = st.text(st.characters(blacklist_characters="\\^$.|?*+()[]{}"), max_size=30)


@given(_LITERAL)
def test_plain_text_is_valid(text: str) -> None:
    assert re2j_error(text) is None


@given(st.text(max_size=30))
def test_pythons_escaping_of_any_text_is_valid(text: str) -> None:
    # re.escape puts a backslash before punctuation and whitespace only: RE2J reads every
    # escaped non-alphanumeric character as itself.
    assert re2j_error(re.escape(text)) is None


@given(st.text(max_size=30).filter(lambda t: "\\E" not in t))
def test_quoted_text_is_valid(text: str) -> None:
    assert re2j_error("\\Q" + text + "\\E") is None


_ATOMS = st.sampled_from(
    [
        "a",
        "b9",
        ".",
        "^",
        "$",
        "\\d",
        "\\W",
        "[a-z]",
        "[^0-9_]",
        "[[:alpha:]]",
        "\\pL",
        "\\p{Greek}",
        "\\x41",
        "\\.",
    ]
)


def _valid_patterns() -> st.SearchStrategy[str]:
    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, inner).map("".join),
            st.tuples(inner, inner).map("|".join),
            inner.map(lambda p: f"(?:{p})"),
            inner.map(lambda p: f"({p})"),
            inner.map(lambda p: f"(?i:{p})"),
            st.tuples(inner, st.sampled_from(["*", "+", "?", "*?", "{2}", "{1,3}", "{0,}"])).map(
                lambda t: f"(?:{t[0]}){t[1]}"
            ),
        )

    return st.recursive(_ATOMS, extend, max_leaves=12)


@given(_valid_patterns())
def test_generated_re2_patterns_are_valid(pattern: str) -> None:
    assert re2j_error(pattern) is None


@given(_valid_patterns())
def test_a_dangling_group_or_class_is_refused(pattern: str) -> None:
    assert re2j_error("(" + pattern) == MISSING_PAREN
    assert re2j_error(pattern + "[") == MISSING_BRACKET


@given(_valid_patterns(), st.sampled_from(["*", "+", "?", "{2}"]), st.sampled_from(["*", "+", "{3}"]))
def test_stacked_repetition_is_refused(pattern: str, first: str, second: str) -> None:
    assert re2j_error(f"(?:{pattern}){first}{second}") == INVALID_REPEAT_OP


def test_unicode_class_names_are_re2js() -> None:
    # Case-sensitive, RE2J's tables only (no Unicode 6.1+ scripts, no Cn).
    assert re2j_error("\\p{Adlam}") is not None
    for name in sorted(UNICODE_CATEGORIES | UNICODE_SCRIPTS | {"Any"}):
        assert re2j_error(f"\\p{{{name}}}\\P{{^{name}}}[\\p{{{name}}}]") is None, name


def test_named_groups_are_ascii_words_and_unique() -> None:
    assert re2j_error("(?P<order_id>\\d+)-(?<line2>\\d+)") is None
    assert re2j_error("(?P<a b>x)") == INVALID_NAMED_CAPTURE
    assert re2j_error("(?P<é>x)") == INVALID_NAMED_CAPTURE
