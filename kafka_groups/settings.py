"""Connection settings shared by every tool, resolved once into a frozen object.

Precedence, highest first: the command-line flag, the environment variable, the
``--command-config`` file. The Apache tools force ``bootstrap.servers`` from
``--bootstrap-server`` over the file, and so do we.

A named cluster (``--cluster NAME`` or ``KAFKA_TOOLS_CLUSTER``, defined in ``clusters.toml``:
kafka_groups/clusters.py) gives the bootstrap servers, the properties (a file or inline) and a
default timeout; ``--bootstrap-server``, ``--command-config`` and ``--timeout`` given on the
command line win over it, and the ``KAFKA_BOOTSTRAP_SERVERS`` / ``KAFKA_COMMAND_CONFIG``
variables are not read while a cluster is named (both set in the environment, with no flag to
decide, is refused: that is how a write reaches a cluster nobody meant).

Client properties can also come without a file, one environment variable per key, so that CI
can keep a secret in its secret store: ``KAFKA_CLIENT_SASL_JAAS_CONFIG`` is
``sasl.jaas.config`` (the prefix dropped, lower case, ``_`` read as ``.``). A key the
properties file sets wins over its variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_groups.errors import ConfigError, UsageError
from kafka_groups.properties import load_properties
from kafka_groups.secrets import secret_values
from kafka_groups.setting_files import echo
from kafka_groups.timeouts import ENV_TIMEOUT, GROUPS_TIMEOUT_MS, LONGEST_CALL_S, LONGEST_MS, whole_ms

if TYPE_CHECKING:
    from kafka_groups.clusters import NamedCluster

ENV_BOOTSTRAP = "KAFKA_BOOTSTRAP_SERVERS"
ENV_COMMAND_CONFIG = "KAFKA_COMMAND_CONFIG"
ENV_PROPERTY_PREFIX = "KAFKA_CLIENT_"
ENV_CLUSTER = "KAFKA_TOOLS_CLUSTER"  # a cluster of clusters.toml (kafka_groups/clusters.py)


def environment_properties(env: Mapping[str, str]) -> dict[str, str]:
    """Client properties given as ``KAFKA_CLIENT_<KEY>`` variables."""
    return {
        name[len(ENV_PROPERTY_PREFIX) :].lower().replace("_", "."): value
        for name, value in env.items()
        if name.startswith(ENV_PROPERTY_PREFIX) and len(name) > len(ENV_PROPERTY_PREFIX)
    }


_ADDRESS = re.compile(r"(?:\[(?P<ipv6>[0-9A-Fa-f:.%]+)\]|(?P<host>[^\s,:\[\]]+)):(?P<port>[0-9]{1,5})")


def check_bootstrap(value: str, source: str = "--bootstrap-server") -> str:
    """``host:port[,host:port]`` (an IPv6 host in brackets), each port from 1 to 65535; the
    value without surrounding white space. Anything else is a usage error naming the address,
    before anything is contacted."""
    servers = value.strip()
    if not servers:
        raise UsageError(f"{source} is blank: expected host:port[,host:port]")
    addresses = [entry.strip() for entry in servers.split(",")]
    for address in addresses:
        match = _ADDRESS.fullmatch(address)
        if match is None or not 1 <= int(match["port"]) <= 65535:
            shown = echo(address)
            raise UsageError(
                f"Invalid {source} address '{shown}': expected host:port with a port "
                "from 1 to 65535 ([host]:port for IPv6), several separated by commas"
            )
    return ",".join(addresses)


@dataclass(frozen=True)
class ConnectionSettings:
    """Where and how to connect; built by :func:`resolve_settings`."""

    bootstrap_servers: str
    timeout_ms: int
    properties: Mapping[str, str] = field(default_factory=dict)
    command_config: str | None = None
    debug: bool = False
    cluster_name: str | None = None  # the named cluster these settings come from
    protected: bool = False  # that cluster is marked protected: a write must be confirmed
    assume_yes: bool = False  # --yes: confirmed beforehand (a protected cluster without a terminal)
    servers_typed: bool = False  # the servers came from --bootstrap-server on the command line
    # Every secret text the properties hold: whatever is printed under these settings (errors,
    # --debug logs, tracebacks) is scrubbed of them. Derived, never given.
    secrets: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "secrets", frozenset(secret_values(self.properties)))

    @property
    def timeout_s(self) -> float:
        """One call's wait: the timeout, at most what the clients take for one call."""
        return min(max(self.timeout_ms, 1) / 1000.0, LONGEST_CALL_S)


def resolve_settings(
    bootstrap_server: str | None,
    command_config: str | None,
    timeout_ms: int | None,
    debug: bool = False,
    environ: Mapping[str, str] | None = None,
    default_timeout_ms: int = GROUPS_TIMEOUT_MS,
    cluster: str | None = None,
    assume_yes: bool = False,
) -> ConnectionSettings:
    """Resolve flags, environment, the named cluster and the properties file into settings (no
    network). ``timeout_ms`` None: --timeout was not given, and the cluster's timeout,
    KAFKA_TOOLS_TIMEOUT_MS or the tool's default applies. ``cluster``: --cluster, when given."""
    env = os.environ if environ is None else environ
    named = _named_cluster(cluster, bootstrap_server, command_config, env)
    if timeout_ms is None:
        timeout_ms = (
            named.timeout_ms if named and named.timeout_ms else default_timeout(env, default_timeout_ms)
        )
    if named is not None:
        config_path = command_config or named.command_config
    else:
        config_path = command_config or env.get(ENV_COMMAND_CONFIG) or None
    if config_path and named is not None and not command_config:
        try:
            properties = environment_properties(env) | load_properties(config_path)
        except ConfigError as exc:
            reason = exc.message.rpartition(": ")[2]
            raise ConfigError(
                f"cannot read the command-config file of cluster '{named.name}' ({config_path}): {reason}"
            ) from None
    elif config_path:
        properties = environment_properties(env) | load_properties(config_path)
    elif named is not None:
        from kafka_groups.clusters import cluster_properties

        properties = environment_properties(env) | cluster_properties(named, env)
    else:
        properties = environment_properties(env)
    # A value given but blank is an error where it was given, never a fall-back to the next.
    source, bootstrap = next(
        (
            (name, value)
            for name, value in (
                ("--bootstrap-server", bootstrap_server),
                (
                    f"bootstrap-server of cluster '{named.name}'" if named else "",
                    named.bootstrap_server if named else None,
                ),
                (ENV_BOOTSTRAP, None if named else env.get(ENV_BOOTSTRAP) or None),  # set but empty: unset
                (f"bootstrap.servers in {config_path}", properties.get("bootstrap.servers")),
            )
            if value is not None
        ),
        ("--bootstrap-server", None),
    )
    if bootstrap is None:
        raise UsageError(f'Missing required argument "[bootstrap-server]" (or set {ENV_BOOTSTRAP})')
    servers = check_bootstrap(bootstrap, source)
    if timeout_ms < 0:
        raise ConfigError(f"--timeout must not be negative, got {timeout_ms}")
    if timeout_ms == 0:
        raise ConfigError("--timeout 0 leaves no time to reach the cluster: give milliseconds, e.g. 5000")
    if timeout_ms > LONGEST_MS:
        # The Apache tool takes any Long and, past this, fails at once with a timeout; ours
        # would retry calls that time out at once until a deadline that never comes.
        raise ConfigError(f"--timeout must be at most {LONGEST_MS} ms (about 24.8 days), got {timeout_ms}")
    return ConnectionSettings(
        bootstrap_servers=servers,
        timeout_ms=timeout_ms,
        properties=properties,
        command_config=config_path,
        debug=debug,
        cluster_name=named.name if named else None,
        protected=named.protected if named else False,
        assume_yes=assume_yes,
        servers_typed=source == "--bootstrap-server",
    )


def _named_cluster(
    cluster: str | None, bootstrap_server: str | None, command_config: str | None, env: Mapping[str, str]
) -> NamedCluster | None:
    """The cluster --cluster names, else the one KAFKA_TOOLS_CLUSTER names (set but empty: unset),
    else None. The variable beside KAFKA_BOOTSTRAP_SERVERS or KAFKA_COMMAND_CONFIG, with no flag
    to say which is meant, is refused."""
    if cluster is not None:
        from kafka_groups.clusters import find_cluster

        return find_cluster(cluster, env)
    name = env.get(ENV_CLUSTER, "").strip()
    if not name:
        return None
    if bootstrap_server is None and command_config is None:
        clash = [v for v in (ENV_BOOTSTRAP, ENV_COMMAND_CONFIG) if env.get(v)]
        if clash:
            raise ConfigError(
                f"{ENV_CLUSTER}={echo(name)} and {clash[0]} are both set: say which cluster is "
                "meant with --cluster or --bootstrap-server, or unset one of them"
            )
    from kafka_groups.clusters import find_cluster

    return find_cluster(name, env, ENV_CLUSTER)


def default_timeout(environ: Mapping[str, str], tool_default_ms: int) -> int:
    """--timeout when it is not given: KAFKA_TOOLS_TIMEOUT_MS (for a cluster that is slow to
    answer, or a busy CI machine), else the tool's own default. Set but empty is unset; anything
    else that is not a positive whole number of milliseconds is refused."""
    raw = environ.get(ENV_TIMEOUT, "").strip()
    if not raw:
        return tool_default_ms
    given = whole_ms(raw, LONGEST_MS)
    if given is None:
        shown = echo(raw)
        raise ConfigError(
            f"{ENV_TIMEOUT} must be a whole number of milliseconds from 1 to {LONGEST_MS}, e.g. 30000; "
            f"got '{shown}'"
        )
    return given


@dataclass(frozen=True)
class ConnectionArgs:
    """Connection options as given on the command line, resolved on use. ``timeout_ms`` None:
    --timeout was not given (``default_timeout`` applies, with the tool's own default)."""

    bootstrap_server: str | None = None
    command_config: str | None = None
    timeout_ms: int | None = None
    debug: bool = False
    default_timeout_ms: int = GROUPS_TIMEOUT_MS
    cluster: str | None = None  # --cluster NAME (ours)
    assume_yes: bool = False  # --yes (ours): a write to a protected cluster without a terminal

    def resolve(self) -> ConnectionSettings:
        return resolve_settings(
            self.bootstrap_server,
            self.command_config,
            self.timeout_ms,
            self.debug,
            default_timeout_ms=self.default_timeout_ms,
            cluster=self.cluster,
            assume_yes=self.assume_yes,
        )
