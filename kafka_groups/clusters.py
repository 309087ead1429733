"""Named clusters: ``clusters.toml`` in the user's configuration directory.

    [clusters.staging]
    bootstrap-server = "staging-1:9092,staging-2:9092"
    command-config = "~/kafka/staging.properties"   # or a [clusters.NAME.properties] table
    timeout = 10000                                  # ms: the default of --timeout
    protected = false

    [clusters.prod]
    bootstrap-server = "prod-1:9093"
    protected = true                                 # writes ask for the name (or --yes)

    [clusters.prod.properties]
    "security.protocol" = "SASL_SSL"
    "sasl.mechanism" = "SCRAM-SHA-512"
    "sasl.jaas.config" = { env = "PROD_KAFKA_JAAS" }           # from an environment variable
    "ssl.truststore.password" = { file = "~/.secrets/prod-ts" } # from a file

A command picks one with ``--cluster NAME`` or ``KAFKA_TOOLS_CLUSTER``. Parsing and checking
are pure (:func:`parse_clusters`); reading the file and the values it refers to is done only
for the cluster a command names (:func:`load_clusters`, :func:`cluster_properties`). Every
mistake is one line naming the file, the line and the problem.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kafka_groups.errors import ConfigError, UsageError
from kafka_groups.escape import escape_controls
from kafka_groups.setting_files import read_setting_file

FILE_NAME = "clusters.toml"
# Bounds on what the configuration may make us read: the file itself, and a secret a value refers to.
MAX_FILE_BYTES = 1 << 20
MAX_SECRET_BYTES = 64 << 10
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_KEYS = ("bootstrap-server", "command-config", "properties", "timeout", "protected")


def config_path(environ: Mapping[str, str]) -> Path:
    """``$XDG_CONFIG_HOME/kafka-group-tools/clusters.toml`` (``~/.config`` when unset or empty)."""
    base = environ.get("XDG_CONFIG_HOME", "").strip() or str(Path.home() / ".config")
    return Path(base) / "kafka-group-tools" / FILE_NAME


@dataclass(frozen=True)
class SecretRef:
    """A property value kept outside the file: an environment variable or a file."""

    kind: str  # "env" or "file"
    target: str  # the variable's name, or the file's path (``~`` expanded, relative to the config)

    def describe(self) -> str:
        return f"${self.target}" if self.kind == "env" else f"file {self.target}"


PropertyValue = str | SecretRef


@dataclass(frozen=True)
class NamedCluster:
    name: str
    bootstrap_server: str
    command_config: str | None = None  # absolute (resolved against the file's directory)
    properties: Mapping[str, PropertyValue] = field(default_factory=dict)
    timeout_ms: int | None = None
    protected: bool = False
    source: str = ""  # the file it was read from


@dataclass(frozen=True)
class ClustersFile:
    path: str
    clusters: Mapping[str, NamedCluster]  # in the file's order


def _line_of(text: str, name: str, key: str | None = None) -> int | None:
    """The line of ``[clusters.NAME]`` (or of ``key`` within its tables) in the file, if found."""
    lines = text.splitlines()
    quoted = rf"(?:\"{re.escape(name)}\"|{re.escape(name)})"
    ours = re.compile(rf"^\s*\[\s*clusters\s*\.\s*{quoted}\s*[\].]")
    start = next((i for i, line in enumerate(lines) if ours.match(line)), None)
    if start is None or key is None:
        return None if start is None else start + 1
    wanted = re.compile(rf"^\s*(?:\"{re.escape(key)}\"|{re.escape(key)})\s*=")
    for i in range(start + 1, len(lines)):
        header = lines[i].lstrip().startswith("[")
        if header and not ours.match(lines[i]):
            break  # another cluster's table
        if wanted.match(lines[i]):
            return i + 1
    return start + 1


class _Problem(Exception):
    def __init__(self, message: str, name: str | None = None, key: str | None = None) -> None:
        super().__init__(message)
        self.message, self.name, self.key = message, name, key


def _where(path: str, text: str, problem: _Problem) -> ConfigError:
    line = _line_of(text, problem.name, problem.key) if problem.name else None
    at = f", line {line}" if line else ""
    return ConfigError(f"{escape_controls(path)}{at}: {problem.message}")


def parse_clusters(text: str, path: str, environ: Mapping[str, str] | None = None) -> ClustersFile:
    """The clusters a file's text defines, every value checked; a ConfigError naming the file,
    the line and the problem otherwise. Reads nothing."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # Python 3.10: the same parser, from PyPI
        import tomli as tomllib

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        what = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        at = f", line {found[1]}" if found else ""
        raise ConfigError(f"{escape_controls(path)}{at}: not valid TOML: {what}") from None
    base = Path(path).parent
    env = os.environ if environ is None else environ
    try:
        unknown = [k for k in data if k != "clusters"]
        if unknown:
            raise _Problem(f"unknown table or key '{unknown[0]}' (the file holds [clusters.NAME] tables)")
        tables = data.get("clusters", {})
        if not isinstance(tables, dict):
            raise _Problem("'clusters' must be a table of [clusters.NAME] tables")
        clusters = {name: _cluster(name, table, base, path, env) for name, table in tables.items()}
    except _Problem as problem:
        raise _where(path, text, problem) from None
    return ClustersFile(path, clusters)


def _cluster(name: str, table: object, base: Path, path: str, env: Mapping[str, str]) -> NamedCluster:
    if not _NAME.fullmatch(name):
        raise _Problem(
            f"cluster name '{escape_controls(name)}' must be 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit",
            name,
        )
    if not isinstance(table, dict):
        raise _Problem(f"clusters.{name} must be a table", name)
    for key in table:
        if key not in _KEYS:
            raise _Problem(
                f"unknown key '{escape_controls(key)}' in [clusters.{name}] (known: {', '.join(_KEYS)})",
                name,
                key,
            )
    bootstrap = table.get("bootstrap-server")
    if not isinstance(bootstrap, str) or not bootstrap.strip():
        raise _Problem(f'[clusters.{name}] needs bootstrap-server = "host:port[,host:port]"', name)
    from kafka_groups.settings import check_bootstrap

    try:
        servers = check_bootstrap(bootstrap, f"bootstrap-server of cluster '{name}'")
    except UsageError as exc:
        raise _Problem(exc.message, name, "bootstrap-server") from None
    command_config = table.get("command-config")
    if command_config is not None:
        if not isinstance(command_config, str) or not command_config.strip():
            raise _Problem("command-config must be the path of a properties file", name, "command-config")
        command_config = str(_resolve_path(command_config, base, env))
    properties = table.get("properties", {})
    if not isinstance(properties, dict):
        raise _Problem("properties must be a table of client properties", name, "properties")
    if command_config is not None and properties:
        raise _Problem(
            f"[clusters.{name}] sets both command-config and properties: keep one", name, "command-config"
        )
    props = {key: _property(name, key, value, base, env) for key, value in properties.items()}
    if "bootstrap.servers" in props:
        raise _Problem("set the servers with bootstrap-server, not in properties", name, "bootstrap.servers")
    timeout = table.get("timeout")
    if timeout is not None:
        from kafka_groups.timeouts import LONGEST_MS

        if isinstance(timeout, bool) or not isinstance(timeout, int) or not 1 <= timeout <= LONGEST_MS:
            raise _Problem(
                f"timeout must be a whole number of milliseconds from 1 to {LONGEST_MS}", name, "timeout"
            )
    protected = table.get("protected", False)
    if not isinstance(protected, bool):
        raise _Problem("protected must be true or false", name, "protected")
    return NamedCluster(name, servers, command_config, props, timeout, protected, path)


def _property(name: str, key: object, value: object, base: Path, env: Mapping[str, str]) -> PropertyValue:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and len(value) == 1:
        ((kind, target),) = value.items()
        if kind in ("env", "file") and isinstance(target, str) and target.strip():
            if kind == "file":
                target = str(_resolve_path(target, base, env))
            return SecretRef(kind, target)
    raise _Problem(
        f"property '{key}' of cluster '{name}' must be a string, a number, true/false, "
        '{ env = "VARIABLE" } or { file = "path" }',
        name,
        str(key),
    )


def _resolve_path(raw: str, base: Path, env: Mapping[str, str]) -> Path:
    expanded = Path(raw.strip()).expanduser()
    return expanded if expanded.is_absolute() else (base / expanded)


def read_config(path: Path) -> str | None:
    """The file's text; None when there is no file. A file that is not a regular file, is too
    big or cannot be read is a ConfigError (nothing is read from a FIFO or a device)."""
    if not os.path.lexists(path):
        return None
    data = read_setting_file(str(path), "clusters file", MAX_FILE_BYTES, "a clusters file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{escape_controls(str(path))}: not UTF-8 (byte {exc.start})") from None


def load_clusters(environ: Mapping[str, str] | None = None) -> ClustersFile:
    """The user's clusters file, parsed (an empty one when there is none)."""
    env = os.environ if environ is None else environ
    path = config_path(env)
    text = read_config(path)
    if text is None:
        return ClustersFile(str(path), {})
    return parse_clusters(text, str(path), env)


def find_cluster(
    name: str, environ: Mapping[str, str] | None = None, source: str = "--cluster"
) -> NamedCluster:
    """The cluster ``name`` (given by ``source``), or one line saying what is there instead."""
    if not name.strip():
        raise UsageError(f"{source} is blank: name a cluster of {FILE_NAME}")
    known = load_clusters(environ)
    found = known.clusters.get(name)
    if found is not None:
        return found
    shown = escape_controls(name)
    if not known.clusters:
        raise UsageError(f"{source}: no cluster '{shown}': {escape_controls(known.path)} defines no clusters")
    from kafka_groups.apache_argv import did_you_mean

    hint = did_you_mean(name, known.clusters, prefix="")
    names = ", ".join(known.clusters)
    raise UsageError(
        f"{source}: no cluster '{shown}' in {escape_controls(known.path)}{hint}; it has: {names}"
    )


def cluster_properties(cluster: NamedCluster, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The cluster's inline properties with their references read: a variable that is unset or
    empty, or a file that cannot be read, is a ConfigError naming the property."""
    env = os.environ if environ is None else environ
    resolved = {}
    for key, value in cluster.properties.items():
        if isinstance(value, SecretRef):
            value = _read_ref(cluster, key, value, env)
        resolved[key] = value
    return resolved


def _read_ref(cluster: NamedCluster, key: str, ref: SecretRef, env: Mapping[str, str]) -> str:
    about = f"property '{key}' of cluster '{cluster.name}'"
    if ref.kind == "env":
        value = env.get(ref.target, "")
        if not value:
            raise ConfigError(f"{about} comes from ${ref.target}, which is not set")
        return value
    shown = escape_controls(ref.target)
    data = read_setting_file(ref.target, f"the file of {about}", MAX_SECRET_BYTES, "a secret file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{about}: {shown} is not UTF-8 text") from None
    # A secret file holds the value, usually with a final newline that is not part of it.
    value = text[:-1] if text.endswith("\n") else text
    value = value[:-1] if value.endswith("\r") else value
    if not value:
        raise ConfigError(f"{about}: {shown} is empty")
    return value
