"""``--validate-regex``: would the broker accept this subscription pattern (KIP-848, RE2J)?

Nothing is contacted: the pattern is checked offline with the broker's RE2J rules
(:mod:`kafka_groups.core.re2j`). The text line is the Apache tool's, word for word
(:mod:`kafka_groups.render.regex`); unlike the Apache tool (which exits 0 either way) an invalid
pattern exits 1, so a CI step can check a pattern before deploying a consumer that subscribes
with it.
"""

from __future__ import annotations

from dataclasses import dataclass

from kafka_groups.core.re2j import RegexVerdict, re2j_error
from kafka_groups.errors import CliError
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show


@dataclass(frozen=True)
class ValidateRegexRequest:
    regex: str
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        error = re2j_error(self.regex)
        failure = None
        if error is not None:
            failure = CliError(f"the regular expression is not valid for the broker (RE2J syntax): {error}")
        return Outcome(RegexVerdict(self.regex, error), self.output, failure=failure)
