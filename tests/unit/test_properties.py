import pytest

from kafka_groups.errors import ConfigError
from kafka_groups.properties import load_properties, parse_properties


def test_separators_comments_and_blank_lines():
    text = "# comment\n! also a comment\n\na=1\nb : 2\nc 3\nd:=4\n  e = spaced  \n"
    assert parse_properties(text) == {"a": "1", "b": "2", "c": "3", "d": "=4", "e": "spaced  "}


def test_escapes_and_unicode():
    text = "key\\=with\\:seps=v\ntab=a\\tb\nuni=\\u0041\\u00e9\nplain\\ key=x\n"
    assert parse_properties(text) == {"key=with:seps": "v", "tab": "a\tb", "uni": "Aé", "plain key": "x"}


def test_line_continuation_keeps_jaas_config_whole():
    text = (
        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required \\\n"
        '    username="alice" \\\n'
        '    password="s3cret";\n'
        "after=1\n"
    )
    props = parse_properties(text)
    assert props["sasl.jaas.config"].endswith('username="alice" password="s3cret";')
    assert props["after"] == "1"


def test_even_backslashes_do_not_continue():
    assert parse_properties("a=x\\\\\nb=y\n") == {"a": "x\\", "b": "y"}


def test_key_without_value_and_later_key_wins():
    assert parse_properties("flag\nx=1\nx=2\n") == {"flag": "", "x": "2"}


def test_malformed_unicode_escape_is_a_config_error():
    with pytest.raises(ConfigError, match="malformed"):
        parse_properties("a=\\u12G4\n")


def test_missing_file_is_one_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="cannot read --command-config file"):
        load_properties(str(tmp_path / "absent.properties"))


def test_escaped_non_bmp_character_is_one_character():
    # An emoji written as its UTF-16 surrogate pair, as Java's native2ascii writes it: Java
    # reads one character, and so must we (never two broken halves).
    props = parse_properties("greeting=hi \\ud83d\\ude00\nsasl.password=p\\u00e4ss\\uD83D\\uDE80\n")
    assert props == {"greeting": "hi \U0001f600", "sasl.password": "päss\U0001f680"}
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for value in props.values() for c in value)


def test_escaped_non_bmp_character_in_a_file(tmp_path):
    path = tmp_path / "client.properties"
    path.write_bytes(b"client.id=app-\\ud83d\\ude00\n")
    assert load_properties(str(path)) == {"client.id": "app-\U0001f600"}


def test_malformed_unicode_escape_names_the_file(tmp_path):
    path = tmp_path / "bad.properties"
    path.write_text("a=\\u12\n")
    with pytest.raises(ConfigError) as caught:
        load_properties(str(path))
    assert caught.value.message == f"{path}: malformed \\uxxxx escape"
