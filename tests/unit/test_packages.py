"""confluent-kafka's package registered without its __init__ (kafka_groups/access/packages.py):
the admin client loads without the serializing clients and asyncio, and the whole package is
still there, the same objects, for whoever asks. Each case runs in a fresh interpreter (the
test process has imported confluent-kafka already)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERDE = "('asyncio', 'confluent_kafka.serialization', 'confluent_kafka.deserializing_consumer')"


def _run(code: str) -> str:
    prelude = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from kafka_groups.access.packages import CLIENT_NAMES, prepare_client\n"
        f"SERDE = {SERDE}\n"
        "def loaded():\n"
        "    return sorted(m for m in SERDE if m in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_admin_client_loads_without_the_serializing_clients():
    out = _run(
        "prepare_client()\n"
        "from confluent_kafka import KafkaException, TopicPartition, cimpl\n"
        "from confluent_kafka.admin import AdminClient\n"
        "admin = AdminClient({'bootstrap.servers': '127.0.0.1:1'})\n"
        "import confluent_kafka\n"
        "print(loaded(), '__getattr__' in vars(confluent_kafka))\n"
        "print(TopicPartition is cimpl.TopicPartition, KafkaException is cimpl.KafkaException)\n"
    )
    assert out.splitlines() == ["[] True", "True True"]


def test_the_names_taken_early_are_the_ones_the_init_binds():
    out = _run(
        "prepare_client()\n"
        "import confluent_kafka\n"
        "names = [n for part in CLIENT_NAMES.values() for n in part]\n"
        "early = {n: getattr(confluent_kafka, n) for n in names}\n"
        "print(loaded(), '__getattr__' in vars(confluent_kafka))\n"
        "from confluent_kafka import DeserializingConsumer\n"
        "print(loaded(), '__getattr__' in vars(confluent_kafka))\n"
        "print([n for n, v in early.items() if getattr(confluent_kafka, n) is not v])\n"
        "print(confluent_kafka.__version__ == confluent_kafka.version())\n"
        "print(DeserializingConsumer.__module__)\n"
    )
    assert out.splitlines() == [
        "[] True",
        "['asyncio', 'confluent_kafka.deserializing_consumer', 'confluent_kafka.serialization'] False",
        "[]",
        "True",
        "confluent_kafka.deserializing_consumer",
    ]


def test_a_name_only_the_init_defines_runs_it_and_a_missing_one_is_an_attribute_error():
    out = _run(
        "prepare_client()\n"
        "import confluent_kafka\n"
        "print(confluent_kafka.ThrottleEvent.__module__)\n"
        "try:\n"
        "    confluent_kafka.no_such_name\n"
        "except AttributeError as exc:\n"
        "    print(type(exc).__name__)\n"
    )
    assert out.splitlines() == ["confluent_kafka", "AttributeError"]


def test_a_submodule_asked_of_the_package_is_imported_without_the_init():
    out = _run(
        "prepare_client()\n"
        "import confluent_kafka\n"
        "print(hasattr(confluent_kafka, 'error'), type(confluent_kafka.error).__name__)\n"
        "print('__getattr__' in vars(confluent_kafka))\n"
    )
    assert out.splitlines() == ["True module", "True"]


def test_star_import_and_dir_see_the_whole_package():
    out = _run(
        "prepare_client()\n"
        "import confluent_kafka\n"
        "print('SerializingProducer' in dir(confluent_kafka))\n"
        "ns = {}\n"
        "exec('from confluent_kafka import *', ns)\n"
        "print('DeserializingConsumer' in ns)\n"
    )
    assert out.splitlines() == ["True", "True"]


def test_prepare_leaves_an_imported_package_alone():
    out = _run(
        "import confluent_kafka\n"
        "before = sys.modules['confluent_kafka']\n"
        "prepare_client()\n"
        "print(sys.modules['confluent_kafka'] is before, 'asyncio' in sys.modules)\n"
    )
    assert out.strip() == "True True"
