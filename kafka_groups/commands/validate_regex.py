"""``--validate-regex``: would the broker accept this subscription pattern (KIP-848, RE2J)?

Nothing is contacted: the pattern is checked offline with the broker's RE2J rules
(:mod:`kafka_groups.core.re2j`). The text line is the Apache tool's, word for word; unlike
the Apache tool (which exits 0 either way) an invalid pattern exits 1, so a CI step can
check a pattern before deploying a consumer that subscribes with it.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from kafka_groups.core.re2j import re2j_error, validate_regex_report
from kafka_groups.errors import CliError
from kafka_groups.escape import escape_controls
from kafka_groups.render import OutputFormat, resolve_format

JSON_SCHEMA = "kafka-group-tools/validate-regex/v1"


@dataclass(frozen=True)
class ValidateRegexRequest:
    regex: str
    output: OutputFormat = OutputFormat.AUTO

    def execute(self) -> None:
        error = re2j_error(self.regex)
        fmt = resolve_format(self.output, sys.stdout)
        if fmt is OutputFormat.JSON:
            import json

            document = {"schema": JSON_SCHEMA, "regex": self.regex, "valid": error is None, "error": error}
            print(json.dumps(document, indent=2))
        elif fmt is OutputFormat.CSV:
            import csv

            writer = csv.writer(sys.stdout, lineterminator="\n")
            writer.writerows(
                [["regex", "valid", "error"], [self.regex, str(error is None).lower(), error or ""]]
            )
        elif fmt is OutputFormat.TABLE:  # a terminal: nothing in the pattern may act on it
            print(escape_controls(validate_regex_report(self.regex)))
        else:  # piped: the Apache tool's bytes
            print(validate_regex_report(self.regex))
        sys.stdout.flush()
        if error is not None:
            raise CliError(f"the regular expression is not valid for the broker (RE2J syntax): {error}")
