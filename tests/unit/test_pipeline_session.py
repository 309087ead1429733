"""kafka_pipeline.session without Spark: where the Kafka source comes from, --conf, and how a JVM
that died is summarised."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kafka_groups.errors import UsageError
from kafka_pipeline import session
from kafka_pipeline.session import (
    JvmOutput,
    KafkaSource,
    failure_summary,
    meaningful,
    parse_conf,
    resolve_source,
)

V = "4.0.0"
SOURCE_JAR = f"spark-sql-kafka-0-10_2.13-{V}.jar"


def _jars(tmp_path: Path, *names: str) -> Path:
    folder = tmp_path / "jars"
    folder.mkdir()
    for name in names:
        (folder / name).write_bytes(b"PK")
    return folder


def test_a_directory_of_jars_is_passed_as_local_jars(tmp_path):
    folder = _jars(tmp_path, SOURCE_JAR, "kafka-clients-3.9.0.jar", "README.txt")
    source = resolve_source(str(folder), None, V, environ={})
    assert [Path(j).name for j in source.jars] == ["kafka-clients-3.9.0.jar", SOURCE_JAR]
    assert source.conf() == {"spark.jars": ",".join(source.jars)}
    assert all(Path(j).is_absolute() for j in source.jars)


def test_a_comma_list_of_jars_and_the_environment(tmp_path):
    folder = _jars(tmp_path, SOURCE_JAR, "commons-pool2-2.12.0.jar")
    listed = f"{folder / SOURCE_JAR},{folder / 'commons-pool2-2.12.0.jar'}"
    assert len(resolve_source(listed, None, V, environ={}).jars) == 2
    from_env = resolve_source(None, None, V, environ={session.JARS_ENV: str(folder)})
    assert {Path(j).name for j in from_env.jars} == {SOURCE_JAR, "commons-pool2-2.12.0.jar"}


def test_packages_leave_resolution_to_spark():
    source = resolve_source(None, " org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0 ", V, environ={})
    assert source == KafkaSource(packages="org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0")
    assert source.conf() == {"spark.jars.packages": "org.apache.spark:spark-sql-kafka-0-10_2.13:4.0.0"}


def test_under_spark_submit_the_submitted_jars_apply():
    assert resolve_source(None, None, V, submitted=True, environ={}).conf() == {}
    with pytest.raises(UsageError, match="spark-submit itself"):
        resolve_source(None, "g:a:1", V, submitted=True, environ={})


@pytest.mark.parametrize(
    ("jars", "packages", "message"),
    [
        ("", None, "--jars is empty"),
        ("   ", None, "--jars is empty"),
        (None, "", "--packages is empty"),
        (None, " ", "--packages is empty"),
        ("x", "g:a:1", "alternatives"),
        ("/nonexistent/a.jar", None, "not a jar file"),
        ("a.jar,,b.jar", None, "not a jar file"),
    ],
)
def test_blank_or_conflicting_sources_are_refused(jars, packages, message):
    with pytest.raises(UsageError, match=message):
        resolve_source(jars, packages, V, environ={})


def test_blank_environment_is_refused_not_ignored():
    with pytest.raises(UsageError, match=f"{session.JARS_ENV} is empty"):
        resolve_source(None, None, V, environ={session.JARS_ENV: ""})


def test_jars_of_another_spark_are_refused(tmp_path):
    folder = _jars(tmp_path, "spark-sql-kafka-0-10_2.13-3.5.1.jar")
    with pytest.raises(UsageError, match=r"lacks spark-sql-kafka-0-10_2.13-4.0.0.jar .*3\.5\.1"):
        resolve_source(str(folder), None, V, environ={})


def test_no_fetched_jars_says_how_to_fetch_them(monkeypatch, tmp_path):
    monkeypatch.setattr(session, "CHECKOUT", tmp_path)
    with pytest.raises(UsageError) as err:
        resolve_source(None, None, V, environ={})
    assert "scripts/setup" in err.value.message and "--packages org.apache.spark:" in err.value.message
    assert "\n" not in err.value.message
    # An interrupted fetch (no completion marker) is not used; a complete one is.
    fetched = session.default_jars_dir(V)
    fetched.mkdir(parents=True)
    (fetched / SOURCE_JAR).write_bytes(b"PK")
    with pytest.raises(UsageError, match="scripts/setup"):
        resolve_source(None, None, V, environ={})
    (fetched.parent / "jars.complete").write_text("done")
    assert [Path(j).name for j in resolve_source(None, None, V, environ={}).jars] == [SOURCE_JAR]


def test_conf_pairs():
    assert parse_conf(["spark.executor.memory=1g", "spark.cores.max=2", "spark.x=a=b"]) == {
        "spark.executor.memory": "1g",
        "spark.cores.max": "2",
        "spark.x": "a=b",
    }
    for bad in ["spark.executor.memory", "executor.memory=1g", "=1", "spark.=1", "", "spark.jars=/x.jar"]:
        with pytest.raises(UsageError):
            parse_conf([bad])


IVY_FAILURE = """\
:: loading settings :: url = jar:file:/x/ivy-2.5.3.jar!/org/apache/ivy/core/settings/ivysettings.xml
Ivy Default Cache set to: /root/.ivy2.5.2/cache
org.slf4j#slf4j-api added as a dependency
:: resolving dependencies :: org.apache.spark#spark-submit-parent-1;1.0
\tconfs: [default]
\tfound org.slf4j#slf4j-api;2.0.16 in local-m2-cache
:: resolution report :: resolve 120ms :: artifacts dl 3ms
\t\t::::::::::::::::::::::::::::::::::::::::::::::

\t\t::              FAILED DOWNLOADS            ::

\t\t:: ^ see resolution messages for details  ^ ::

\t\t::::::::::::::::::::::::::::::::::::::::::::::

\t\t:: org.slf4j#slf4j-api;2.0.16!slf4j-api.jar

\t\t::::::::::::::::::::::::::::::::::::::::::::::

Exception in thread "main" java.lang.RuntimeException: [download failed: org.slf4j#slf4j-api;2.0.16!\
slf4j-api.jar]
\tat org.apache.spark.util.MavenUtils$.resolveMavenCoordinates(MavenUtils.scala:1613)
\tat org.apache.spark.deploy.SparkSubmit$.main(SparkSubmit.scala:1132)
\t... 3 more
"""


def test_ivy_failure_is_summarised_by_its_exception():
    cause, last = failure_summary(IVY_FAILURE.splitlines(keepends=True))
    assert cause == "[download failed: org.slf4j#slf4j-api;2.0.16!slf4j-api.jar]"
    assert last[-1].startswith('Exception in thread "main" java.lang.RuntimeException')
    assert "\t\t:: org.slf4j#slf4j-api;2.0.16!slf4j-api.jar" in last
    assert not any(line.strip(": \t") == "" or line.lstrip().startswith("at ") for line in last)


def test_a_jvm_without_an_exception_is_summarised_by_its_last_line():
    assert failure_summary(["Error: Could not find or load main class x\n", "\n"])[0] == (
        "Error: Could not find or load main class x"
    )
    assert failure_summary(["JAVA_HOME is not set\n"])[0] == "JAVA_HOME is not set"
    assert failure_summary([])[0] == "it printed nothing"


line = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n"), max_size=60)


@given(st.lists(line, max_size=40), st.integers(min_value=1, max_value=12))
def test_the_summary_is_a_bounded_tail_of_meaningful_lines(lines, keep):
    texts = [f"{x}\n" for x in lines]
    cause, last = failure_summary(texts, keep)
    said = meaningful(texts)
    assert last == said[-keep:]
    assert cause and "\n" not in cause
    assert all(s.strip() and s.strip(": \t") for s in said)


def test_jvm_output_keeps_a_bounded_tail_and_forwards_under_debug(tmp_path):
    forwarded = (tmp_path / "forward.txt").open("w")
    output = JvmOutput(forward=forwarded)
    with os.fdopen(os.dup(output.write_fd), "w") as writer:
        for i in range(5000):
            writer.write(f"line {i}\n")
    lines = output.finish()
    forwarded.close()
    assert len(lines) == 200 and lines[-1] == "line 4999\n" and lines[0] == "line 4800\n"
    assert (tmp_path / "forward.txt").read_text().count("\n") == 5000
    assert sys.getsizeof(output.tail) < 10_000
