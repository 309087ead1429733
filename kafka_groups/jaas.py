"""``sasl.jaas.config`` as the Java clients read it: one login module, its control flag and its
options. Errors never quote the text, which holds secrets."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from kafka_groups.errors import ConfigError
from kafka_groups.setting_files import echo

_JAAS_TOKEN = re.compile(r'\s*(?:"((?:[^"\\]|\\.)*)"|([^\s=";]+)|(=)|(;))')


@dataclass(frozen=True)
class JaasEntry:
    module: str
    flag: str
    options: Mapping[str, str]


def parse_jaas(text: str) -> JaasEntry:
    """``LoginModule flag key=value key="quoted value";`` (one entry, as ``sasl.jaas.config``
    takes it). Errors never quote the text, which holds secrets."""
    tokens: list[tuple[str, bool]] = []  # (text, quoted)
    pos = 0
    text = text.strip()
    while pos < len(text):
        match = _JAAS_TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise ConfigError('sasl.jaas.config is malformed (expected: LoginModule flag key="value" ...;)')
        pos = match.end()
        if match.group(1) is not None:
            tokens.append((re.sub(r"\\(.)", r"\1", match.group(1)), True))
        else:
            tokens.append((match.group(2) or match.group(3) or match.group(4), False))
    if len(tokens) < 3 or tokens[-1] != (";", False) or tokens[0][1] or tokens[1][1]:
        raise ConfigError('sasl.jaas.config is malformed (expected: LoginModule flag key="value" ...;)')
    module, flag = tokens[0][0], tokens[1][0]
    if flag.lower() not in ("required", "requisite", "sufficient", "optional"):
        raise ConfigError(f"sasl.jaas.config: unknown control flag after {echo(module)} (expected required)")
    body = tokens[2:-1]
    if (";", False) in body:
        raise ConfigError("sasl.jaas.config holds more than one login module (the clients take one)")
    if len(body) % 3:
        raise ConfigError('sasl.jaas.config is malformed: expected key="value" options')
    options: dict[str, str] = {}
    for i in range(0, len(body), 3):
        key, equals, value = body[i : i + 3]
        if key[1] or equals != ("=", False) or value == ("=", False):
            raise ConfigError('sasl.jaas.config is malformed: expected key="value" options')
        options[key[0]] = value[0]
    return JaasEntry(module, flag.lower(), options)
