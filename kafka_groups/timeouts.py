"""The group tools' --timeout defaults and the variable that replaces them: constants only, so
that ``--help`` can name them without loading the settings."""

ENV_TIMEOUT = "KAFKA_TOOLS_TIMEOUT_MS"  # the default of --timeout, where the tool has one
GROUPS_TIMEOUT_MS = 5000  # --timeout's default in kafka-consumer-groups.sh
STREAMS_TIMEOUT_MS = 30000  # and in kafka-streams-groups.sh
# The longest wait the clients can be given: librdkafka takes its timeouts as C ints of
# milliseconds, and a call given more times out at once (about 24.8 days).
LONGEST_MS = 2**31 - 1
# The longest one call waits: confluent-kafka takes an Admin request_timeout of at most an hour.
# A longer --timeout is calls of an hour at most, tried again until it runs out.
LONGEST_CALL_S = 3600.0


def whole_ms(raw: str, most: int, least: int = 1) -> int | None:
    """``raw`` (blanks around it ignored) as a whole number from ``least`` to ``most``; None when
    it is not one (digits only, ASCII, at most ten of them)."""
    raw = raw.strip()
    if raw.isascii() and raw.isdigit() and len(raw) <= 10 and least <= int(raw) <= most:
        return int(raw)
    return None
