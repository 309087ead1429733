"""The named clusters of clusters.toml as the ``clusters`` subcommands show them: pure values,
secrets already masked (nothing here holds a secret's text)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ClusterRow:
    name: str
    bootstrap: str
    protected: bool
    timeout_ms: int | None
    config: str  # where its client properties come from, in a few words
    current: bool  # the one KAFKA_TOOLS_CLUSTER names


@dataclass(frozen=True)
class ClusterListResult:
    path: str
    rows: tuple[ClusterRow, ...]


@dataclass(frozen=True)
class ShownProperty:
    key: str
    value: str  # masked when secret
    source: str  # "inline", "$VAR", "file PATH", "command-config"


@dataclass(frozen=True)
class ClusterShowResult:
    name: str
    path: str
    bootstrap: str
    protected: bool
    timeout_ms: int | None
    command_config: str | None
    properties: tuple[ShownProperty, ...]
    problems: tuple[str, ...] = ()  # a reference that cannot be read, a file that is missing


@dataclass(frozen=True)
class ClusterCheckRow:
    name: str
    bootstrap: str
    cluster_id: str | None
    brokers: int | None
    error: str | None  # None: reached


@dataclass(frozen=True)
class ClusterCheckResult:
    rows: tuple[ClusterCheckRow, ...]

    @property
    def failed(self) -> list[ClusterCheckRow]:
        return [r for r in self.rows if r.error is not None]
