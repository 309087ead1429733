"""kafka-python's package registered without its __init__ (access/protocol_layer.py): the
protocol layer loads alone, and the whole package is still there for whoever asks for it.
Each case runs in a fresh interpreter (the test process may have imported kafka already)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(code: str) -> str:
    prelude = (
        f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n"
        "from kafka_groups.access.protocol_layer import prepare\n"
    )
    proc = subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_the_protocol_layer_loads_without_the_consumer_and_producer():
    out = _run(
        "prepare()\n"
        "from kafka.admin import KafkaAdminClient, OffsetSpec\n"
        "from kafka.errors import KafkaError\n"
        "from kafka.protocol.admin import ListGroupsRequest\n"
        "others = ('kafka.consumer', 'kafka.producer', 'kafka.serializer')\n"
        "print(sorted(m for m in others if m in sys.modules))\n"
        "print(KafkaAdminClient.__module__)\n"
    )
    assert out.splitlines() == ["[]", "kafka.admin.client"]


def test_a_name_from_the_package_itself_runs_its_init_in_full():
    out = _run(
        "prepare()\n"
        "import kafka.admin\n"
        "from kafka import KafkaConsumer, KafkaProducer\n"
        "import kafka\n"
        "same = kafka.__version__ == kafka.version.__version__\n"
        "print(KafkaConsumer.__module__, KafkaProducer.__module__, same)\n"
        "print('__getattr__' in vars(kafka))\n"
    )
    assert out.splitlines() == ["kafka.consumer.group kafka.producer.kafka True", "False"]


def test_a_missing_name_is_still_an_attribute_error():
    out = _run(
        "prepare()\n"
        "import kafka\n"
        "try:\n"
        "    kafka.no_such_name\n"
        "except AttributeError:\n"
        "    print('AttributeError')\n"
    )
    assert out.strip() == "AttributeError"


def test_prepare_leaves_an_imported_package_alone():
    out = _run(
        "import kafka\nbefore = sys.modules['kafka']\nprepare()\nprint(sys.modules['kafka'] is before)\n"
    )
    assert out.strip() == "True"


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


def test_dir_of_the_package_lists_what_its_init_defines():
    out = _run("prepare()\nimport kafka\nprint('KafkaAdminClient' in dir(kafka))\n")
    assert out.strip() == "True"
