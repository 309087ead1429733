"""``clusters list``, ``clusters show NAME`` and ``clusters check [NAME ...]``: the named clusters
of clusters.toml (kafka_groups/clusters.py), their settings with every secret masked, and
whether each answers (its cluster id and broker count)."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from kafka_groups.clusters import NamedCluster, SecretRef, find_cluster, load_clusters
from kafka_groups.core.clusters import (
    ClusterCheckResult,
    ClusterCheckRow,
    ClusterListResult,
    ClusterRow,
    ClusterShowResult,
    ShownProperty,
)
from kafka_groups.errors import CliError, ConfigError, PartialFailure
from kafka_groups.render import OutputFormat
from kafka_groups.render.outcome import Outcome, Show
from kafka_groups.secrets import REDACTED, SECRET_KEYS
from kafka_groups.settings import ENV_CLUSTER, ConnectionArgs

_USER_INFO = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/@\s]*@")


def masked(key: str, value: str) -> str:
    """A property's value as ``show`` prints it: a secret key's hidden, a URL's user info hidden."""
    if key in SECRET_KEYS or "password" in key or "secret" in key:
        return REDACTED
    return _USER_INFO.sub(rf"\1{REDACTED}@", value)


def _config_words(cluster: NamedCluster) -> str:
    if cluster.command_config:
        return f"command-config {cluster.command_config}"
    if not cluster.properties:
        return "-"
    refs = sum(isinstance(v, SecretRef) for v in cluster.properties.values())
    inline = f"{len(cluster.properties)} propert{'y' if len(cluster.properties) == 1 else 'ies'}"
    return f"{inline} ({refs} by reference)" if refs else inline


@dataclass(frozen=True)
class ListClustersRequest:
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        known = load_clusters()
        current = os.environ.get(ENV_CLUSTER, "").strip()
        rows = tuple(
            ClusterRow(
                c.name, c.bootstrap_server, c.protected, c.timeout_ms, _config_words(c), c.name == current
            )
            for c in known.clusters.values()
        )
        return Outcome(ClusterListResult(known.path, rows), self.output)


@dataclass(frozen=True)
class ShowClusterRequest:
    name: str
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        cluster = find_cluster(self.name, source="clusters show")
        shown: list[ShownProperty] = []
        problems: list[str] = []
        if cluster.command_config:
            from kafka_groups.properties import load_properties

            try:
                loaded = load_properties(cluster.command_config)
            except ConfigError as exc:
                problems.append(exc.message)
            else:
                shown += [ShownProperty(k, masked(k, v), "command-config") for k, v in loaded.items()]
        for key, value in cluster.properties.items():
            if isinstance(value, SecretRef):
                problem = _unreadable(value)
                if problem:
                    problems.append(f"property '{key}': {problem}")
                shown.append(ShownProperty(key, REDACTED, value.describe()))
            else:
                shown.append(ShownProperty(key, masked(key, value), "inline"))
        result = ClusterShowResult(
            cluster.name,
            cluster.source,
            cluster.bootstrap_server,
            cluster.protected,
            cluster.timeout_ms,
            cluster.command_config,
            tuple(shown),
            tuple(problems),
        )
        return Outcome(result, self.output)


def _unreadable(ref: SecretRef) -> str | None:
    """Why a reference would not give a value (the value itself is never read here)."""
    if ref.kind == "env":
        return None if os.environ.get(ref.target) else f"${ref.target} is not set"
    if not os.path.isfile(ref.target):
        return f"{ref.target} is not a file"
    if not os.access(ref.target, os.R_OK):
        return f"{ref.target} cannot be read"
    return None


@dataclass(frozen=True)
class CheckClustersRequest:
    names: tuple[str, ...] = ()  # none: every cluster of the file
    timeout_ms: int | None = None
    debug: bool = False
    output: OutputFormat = OutputFormat.AUTO

    def execute(self, show: Show | None = None) -> Outcome:
        if self.names:
            chosen = [find_cluster(n, source="clusters check") for n in self.names]
        else:
            known = load_clusters()
            if not known.clusters:
                raise ConfigError(f"{known.path} defines no clusters to check")
            chosen = list(known.clusters.values())
        rows = tuple(self._check(c) for c in chosen)
        result = ClusterCheckResult(rows)
        failure: CliError | None = None
        if result.failed:
            first = result.failed[0]
            line = f"cluster '{first.name}': {first.error}"
            if len(result.failed) == len(rows):
                failure = CliError(line if len(rows) == 1 else f"no cluster answered ({line})")
            else:
                failure = PartialFailure(
                    f"{len(result.failed)} of {len(rows)} clusters did not answer ({line})"
                )
        return Outcome(result, self.output, failure=failure)

    def _check(self, cluster: NamedCluster) -> ClusterCheckRow:
        from kafka_groups.commands.session import cluster_session
        from kafka_groups.secrets import scrub

        args = ConnectionArgs(timeout_ms=self.timeout_ms, debug=self.debug, cluster=cluster.name)
        try:
            settings = args.resolve()
        except CliError as exc:
            return ClusterCheckRow(cluster.name, cluster.bootstrap_server, None, None, exc.message)
        try:
            with cluster_session(settings) as access:
                cluster_id, brokers = access.cluster_summary()
        except CliError as exc:
            error = scrub(exc.message, settings.secrets)
            return ClusterCheckRow(cluster.name, settings.bootstrap_servers, None, None, error)
        return ClusterCheckRow(cluster.name, settings.bootstrap_servers, cluster_id, brokers, None)
