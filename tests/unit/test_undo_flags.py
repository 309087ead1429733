"""The connection flags a printed command (an undo) carries: it must run from any directory."""

from __future__ import annotations

import os

from kafka_groups.commands.backup import connection_flags
from kafka_groups.settings import ConnectionArgs


def test_a_relative_command_config_from_the_environment_goes_in_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KAFKA_COMMAND_CONFIG", "conf/client.properties")
    flags = connection_flags(ConnectionArgs(bootstrap_server="h:9092"))
    assert flags == f" --bootstrap-server h:9092 --command-config {tmp_path}/conf/client.properties"


def test_an_absolute_one_is_left_to_the_environment_and_a_flag_wins(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KAFKA_COMMAND_CONFIG", "/etc/kafka/client.properties")
    assert connection_flags(ConnectionArgs(bootstrap_server="h:9092")) == " --bootstrap-server h:9092"
    given = connection_flags(ConnectionArgs(bootstrap_server="h:9092", command_config="a.properties"))
    assert given.endswith(f" --command-config {os.path.join(tmp_path, 'a.properties')}")


def test_a_named_cluster_does_not_read_the_variable(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("KAFKA_COMMAND_CONFIG", "client.properties")
    flags = connection_flags(ConnectionArgs(cluster="prod", assume_yes=True), writes=True)
    assert flags == " --cluster prod --yes"
