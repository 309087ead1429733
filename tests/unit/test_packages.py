"""The client packages registered without their __init__ (kafka_groups/access/packages.py):
confluent-kafka's admin client loads without the serializing clients and asyncio, kafka-python's
protocol layer without its consumer and producer (and its connection manager without the
requests it does not send), and each whole package is still there, the
same objects, for whoever asks. Each case runs in a fresh interpreter (the test process has
imported both packages already)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERDE = "('asyncio', 'confluent_kafka.deserializing_consumer', 'confluent_kafka.serializing_producer')"


def _run(code: str) -> str:
    prelude = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from kafka_groups.access.packages import CLIENT_NAMES, prepare_client\n"
        "from kafka_groups.access.protocol_layer import prepare, prepare_messages\n"
        f"SERDE = {SERDE}\n"
        "def loaded():\n"
        "    return sorted(m for m in SERDE if m in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# Each case: what a fresh interpreter runs after _run's prelude, and the lines it prints.
CASES = [
    pytest.param(
        """
        prepare_client()
        from confluent_kafka import KafkaException, TopicPartition, cimpl
        from confluent_kafka.admin import AdminClient
        admin = AdminClient({'bootstrap.servers': '127.0.0.1:1'})
        import confluent_kafka
        print(loaded(), '__getattr__' in vars(confluent_kafka))
        print(TopicPartition is cimpl.TopicPartition, KafkaException is cimpl.KafkaException)
        """,
        ["[] True", "True True"],
        id="the_admin_client_loads_without_the_serializing_clients",
    ),
    pytest.param(
        """
        prepare_client()
        import confluent_kafka
        names = [n for part in CLIENT_NAMES.values() for n in part]
        early = {n: getattr(confluent_kafka, n) for n in names}
        print(loaded(), '__getattr__' in vars(confluent_kafka))
        from confluent_kafka import DeserializingConsumer
        print(loaded(), '__getattr__' in vars(confluent_kafka))
        print([n for n, v in early.items() if getattr(confluent_kafka, n) is not v])
        print(confluent_kafka.__version__ == confluent_kafka.version())
        print(DeserializingConsumer.__module__)
        """,
        [
            "[] True",
            str(["asyncio", "confluent_kafka.deserializing_consumer", "confluent_kafka.serializing_producer"])
            + " False",
            "[]",
            "True",
            "confluent_kafka.deserializing_consumer",
        ],
        id="the_names_taken_early_are_the_ones_the_init_binds",
    ),
    pytest.param(
        """
        prepare_client()
        import confluent_kafka
        print(confluent_kafka.ThrottleEvent.__module__)
        try:
            confluent_kafka.no_such_name
        except AttributeError as exc:
            print(type(exc).__name__)
        """,
        ["confluent_kafka", "AttributeError"],
        id="a_name_only_the_init_defines_runs_it_and_a_missing_one_is_an_attribute_error",
    ),
    pytest.param(
        """
        prepare_client()
        from confluent_kafka.serialization import StringSerializer
        import confluent_kafka.deserializing_share_consumer
        import confluent_kafka
        print(StringSerializer.__module__, '__getattr__' in vars(confluent_kafka))
        """,
        [
            "confluent_kafka.serialization True",
        ],
        id="the_serializers_import_on_their_own_after_the_tools",
    ),
    pytest.param(
        """
        prepare_client()
        from unittest import mock
        import confluent_kafka
        with mock.patch('confluent_kafka.Producer') as patched:
            confluent_kafka.__version__  # runs the __init__, which binds Producer too
            print(confluent_kafka.Producer is patched)
        print(confluent_kafka.Producer is confluent_kafka.cimpl.Producer)
        """,
        ["True", "True"],
        id="a_patch_outlasts_the_init",
    ),
    pytest.param(
        """
        prepare_client()
        import confluent_kafka
        print(hasattr(confluent_kafka, 'avro'), 'confluent_kafka.avro' in sys.modules)
        """,
        ["False False"],
        id="a_submodule_not_loaded_is_no_attribute",
    ),
    pytest.param(
        """
        prepare_client()
        import confluent_kafka
        print(hasattr(confluent_kafka, 'error'), type(confluent_kafka.error).__name__)
        print('__getattr__' in vars(confluent_kafka))
        """,
        ["True module", "True"],
        id="a_submodule_asked_of_the_package_is_imported_without_the_init",
    ),
    pytest.param(
        """
        prepare_client()
        import confluent_kafka
        print('SerializingProducer' in dir(confluent_kafka))
        ns = {}
        exec('from confluent_kafka import *', ns)
        print('DeserializingConsumer' in ns)
        """,
        ["True", "True"],
        id="star_import_and_dir_see_the_whole_package",
    ),
    pytest.param(
        """
        import confluent_kafka
        before = sys.modules['confluent_kafka']
        prepare_client()
        print(sys.modules['confluent_kafka'] is before, 'asyncio' in sys.modules)
        """,
        ["True True"],
        id="prepare_leaves_an_imported_package_alone",
    ),
    pytest.param(
        """
        prepare()
        from kafka.admin import KafkaAdminClient, OffsetSpec
        from kafka.errors import KafkaError
        from kafka.protocol.admin import ListGroupsRequest
        others = ('kafka.consumer', 'kafka.producer', 'kafka.serializer')
        print(sorted(m for m in others if m in sys.modules))
        print(KafkaAdminClient.__module__)
        """,
        ["[]", "kafka.admin.client"],
        id="the_protocol_layer_loads_without_the_consumer_and_producer",
    ),
    pytest.param(
        """
        prepare_messages()
        from kafka.net.manager import KafkaConnectionManager
        from kafka.protocol.admin import ListGroupsRequest
        from kafka.protocol.consumer import OffsetFetchRequest
        import kafka.protocol.admin.groups, kafka.protocol.consumer.group
        print(ListGroupsRequest is kafka.protocol.admin.groups.ListGroupsRequest)
        print(OffsetFetchRequest is kafka.protocol.consumer.group.OffsetFetchRequest)
        inside = ('kafka.protocol.admin.', 'kafka.protocol.consumer.')
        messages = [m for m in sys.modules if m.startswith(inside)]
        print(sorted(messages), 'kafka.admin' in sys.modules)
        """,
        ["True", "True", "['kafka.protocol.admin.groups', 'kafka.protocol.consumer.group'] False"],
        id="the_connection_manager_loads_only_the_requests_it_sends",
    ),
    pytest.param(
        """
        prepare_messages()
        import kafka.protocol.admin as admin
        from kafka.protocol.admin import ListGroupsRequest
        import kafka.admin
        from kafka.protocol.admin.topics import CreateTopicsRequest
        print(admin.CreateTopicsRequest is CreateTopicsRequest, admin.ListGroupsRequest is ListGroupsRequest)
        print('CreateTopicsRequest' in admin.__all__, '__getattr__' in vars(admin))
        import kafka.protocol
        print(kafka.protocol.admin is admin)
        """,
        ["True True", "True False", "True"],
        id="a_message_package_asked_for_another_name_runs_its_init_in_full",
    ),
    pytest.param(
        """
        prepare()
        import kafka.admin
        from kafka import KafkaConsumer, KafkaProducer
        import kafka
        same = kafka.__version__ == kafka.version.__version__
        print(KafkaConsumer.__module__, KafkaProducer.__module__, same)
        print('__getattr__' in vars(kafka))
        """,
        ["kafka.consumer.group kafka.producer.kafka True", "False"],
        id="a_name_from_the_package_itself_runs_its_init_in_full",
    ),
    pytest.param(
        """
        prepare()
        import kafka
        try:
            kafka.no_such_name
        except AttributeError:
            print('AttributeError')
        """,
        ["AttributeError"],
        id="a_missing_name_is_still_an_attribute_error",
    ),
    pytest.param(
        """
        import kafka
        before = sys.modules['kafka']
        prepare()
        print(sys.modules['kafka'] is before)
        """,
        ["True"],
        id="prepare_leaves_an_imported_kafka_python_alone",
    ),
    pytest.param(
        """
        prepare()
        import kafka
        print('KafkaAdminClient' in dir(kafka))
        """,
        ["True"],
        id="dir_of_the_package_lists_what_its_init_defines",
    ),
]


@pytest.mark.parametrize(("code", "printed"), CASES)
def test_the_package_as_the_case_finds_it(code, printed):
    assert _run(code).splitlines() == printed


def test_threads_that_ask_the_package_at_once_all_get_the_whole_of_it():
    """The first name asked for runs the __init__ (tens of milliseconds); threads that ask while it
    runs wait for it, as they would for any import, instead of seeing a half-built package."""
    out = _run(
        "import threading\n"
        "prepare()\n"
        "start = threading.Barrier(8)\n"
        "failures = []\n"
        "def ask(i):\n"
        "    start.wait()\n"
        "    try:\n"
        "        if i % 2:\n"
        "            from kafka import KafkaProducer\n"
        "        else:\n"
        "            import kafka\n"
        "            kafka.KafkaConsumer\n"
        "    except Exception as exc:\n"
        "        failures.append(repr(exc))\n"
        "threads = [threading.Thread(target=ask, args=(i,)) for i in range(8)]\n"
        "for t in threads: t.start()\n"
        "for t in threads: t.join()\n"
        "print(failures)\n"
        "import kafka\n"
        "print('KafkaConsumer' in dir(kafka))\n"
    )
    assert out.splitlines() == ["[]", "True"]


def test_the_protocol_client_refuses_a_setting_it_does_not_know_before_connecting():
    """As kafka-python's admin client refuses one: a misspelt setting is not silently dropped."""
    out = _run(
        "import threading\n"
        "from kafka_groups.access.protocol_layer import ProtocolClient\n"
        "try:\n"
        "    ProtocolClient({'bootstrap_servers': ['127.0.0.1:1'], 'request_timout_ms': 5})\n"
        "except Exception as exc:\n"
        "    print(type(exc).__name__, exc)\n"
        "print(threading.active_count())\n"
    )
    refused = "KafkaConfigurationError KafkaConfigurationError: Unrecognized configs: ['request_timout_ms']"
    assert out.splitlines() == [refused, "1"]
