"""``kafka-topics --list`` as a request."""

from __future__ import annotations

from dataclasses import dataclass

from kafka_groups.commands.session import cluster_session
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.settings import ConnectionArgs
from kafka_topics.core import TopicListResult, api_timeout, select_topics

# kafka-topics.sh sets no per-call timeout; its Admin client waits up to 60 s
# (default.api.timeout.ms, which --command-config or KAFKA_CLIENT_DEFAULT_API_TIMEOUT_MS sets).
TOPICS_TIMEOUT_MS = 60000


@dataclass(frozen=True)
class ListTopicsRequest:
    connection: ConnectionArgs
    topic: str | None = None
    exclude_internal: bool = False
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        with cluster_session(self.connection, api_timeout) as access:
            names = access.list_topics()
        return Outcome(TopicListResult(select_topics(names, self.topic, self.exclude_internal)), self.output)
