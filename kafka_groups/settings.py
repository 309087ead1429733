"""Connection settings shared by every tool, resolved once into a frozen object.

Precedence, highest first: the command-line flag, the environment variable, the
``--command-config`` file. The Apache tools force ``bootstrap.servers`` from
``--bootstrap-server`` over the file, and so do we.

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

from kafka_groups.errors import ConfigError, UsageError
from kafka_groups.properties import load_properties
from kafka_groups.secrets import secret_values
from kafka_groups.setting_files import echo
from kafka_groups.timeouts import ENV_TIMEOUT, GROUPS_TIMEOUT_MS, LONGEST_CALL_S, LONGEST_MS, whole_ms

ENV_BOOTSTRAP = "KAFKA_BOOTSTRAP_SERVERS"
ENV_COMMAND_CONFIG = "KAFKA_COMMAND_CONFIG"
ENV_PROPERTY_PREFIX = "KAFKA_CLIENT_"


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
) -> ConnectionSettings:
    """Resolve flags, environment and the properties file into settings (no network).
    ``timeout_ms`` None: --timeout was not given, and KAFKA_TOOLS_TIMEOUT_MS or the tool's
    default applies."""
    env = os.environ if environ is None else environ
    if timeout_ms is None:
        timeout_ms = default_timeout(env, default_timeout_ms)
    config_path = command_config or env.get(ENV_COMMAND_CONFIG) or None
    properties = environment_properties(env) | (load_properties(config_path) if config_path else {})
    # A value given but blank is an error where it was given, never a fall-back to the next.
    source, bootstrap = next(
        (
            (name, value)
            for name, value in (
                ("--bootstrap-server", bootstrap_server),
                (ENV_BOOTSTRAP, env.get(ENV_BOOTSTRAP) or None),  # set but empty: unset
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
    )


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

    def resolve(self) -> ConnectionSettings:
        return resolve_settings(
            self.bootstrap_server,
            self.command_config,
            self.timeout_ms,
            self.debug,
            default_timeout_ms=self.default_timeout_ms,
        )
