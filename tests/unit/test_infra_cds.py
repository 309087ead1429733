"""infra/cds.py: a broker or Spark driver JVM is given a class-data sharing archive only when one was
made from these very jars with this very JDK, never a half-written or another release's one, and
KAFKA_INFRA_CDS=0 gives none. (The archives themselves are made and used by the real JVMs: the
suite's brokers and Spark drivers start with them once scripts/setup has made them.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from infra import cds


def _release(root: Path, stamp: str = "4.3.1 abc") -> Path:
    libs = root / "libs"
    libs.mkdir(parents=True)
    (root / "libs.complete").write_text(stamp)
    return libs


def _archive(libs: Path, data: bytes = b"archive") -> Path:
    archive, stamp = cds._paths(libs, cds.BROKER)
    archive.parent.mkdir(parents=True, exist_ok=True)
    archive.write_bytes(data)
    stamp.write_text(cds._stamp(libs))
    return archive


@pytest.fixture(autouse=True)
def _enabled(monkeypatch):
    monkeypatch.delenv(cds.CDS_ENV, raising=False)


def test_no_archive_no_options(tmp_path):
    assert cds.broker_opts(_release(tmp_path / "4.3.1")) == []


def test_a_current_archive_is_mapped_with_the_jvm_messages_off(tmp_path):
    libs = _release(tmp_path / "4.3.1")
    archive = _archive(libs)
    opts = cds.broker_opts(libs)
    assert opts == [f"-XX:SharedArchiveFile={archive}", "-Xlog:cds=off", "-Xlog:cds+dynamic=off"]


def test_an_archive_of_other_jars_or_an_empty_one_is_not_used(tmp_path):
    libs = _release(tmp_path / "4.3.1")
    _archive(libs)
    (libs.parent / "libs.complete").write_text("4.3.1 another-pom")  # the jars were fetched again
    assert cds.broker_opts(libs) == []
    _archive(libs, b"")  # a file the JVM never finished writing
    assert cds.broker_opts(libs) == []


def test_another_releases_archive_is_not_used(tmp_path):
    _archive(_release(tmp_path / "4.3.1"))
    assert cds.broker_opts(_release(tmp_path / "3.9.2", "3.9.2 def")) == []


def test_another_jdk_is_not_given_the_archive(tmp_path, monkeypatch):
    libs = _release(tmp_path / "4.3.1")
    _archive(libs)
    other = tmp_path / "jdk" / "bin" / "java"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\n")
    monkeypatch.setattr(cds, "_java", lambda: str(other))
    assert cds.broker_opts(libs) == []


def test_kafka_infra_cds_0_turns_it_off(tmp_path, monkeypatch):
    libs = _release(tmp_path / "4.3.1")
    _archive(libs)
    monkeypatch.setenv(cds.CDS_ENV, "0")
    assert cds.broker_opts(libs) == []


def test_while_an_archive_is_made_the_broker_writes_it_instead(tmp_path, monkeypatch):
    libs = _release(tmp_path / "4.3.1")
    _archive(libs)
    monkeypatch.setenv(cds.CDS_ENV, "0")
    target = tmp_path / "new.jsa"
    with cds._dumping_to(libs, cds.BROKER, target):
        assert cds.broker_opts(libs)[0] == f"-XX:ArchiveClassesAtExit={target}"
        assert cds.broker_opts(_release(tmp_path / "3.9.2", "3.9.2 x")) == []  # only that release
    assert cds.broker_opts(libs) == []


def test_the_spark_driver_gets_the_archive_of_this_pyspark_only(tmp_path, monkeypatch):
    pytest.importorskip("pyspark")
    monkeypatch.setattr(cds, "SPARK_JARS_DIR", tmp_path / "spark")
    assert cds.spark_driver_opts() == []
    archive, stamp = cds._spark_paths()
    archive.parent.mkdir(parents=True)
    archive.write_bytes(b"archive")
    stamp.write_text(cds._spark_stamp())
    assert cds.spark_driver_opts()[0] == f"-XX:SharedArchiveFile={archive}"
    stamp.write_text(cds._spark_stamp().replace("pyspark ", "pyspark 0.0.0-"))  # another pyspark
    assert cds.spark_driver_opts() == []
    stamp.write_text(cds._spark_stamp())
    monkeypatch.setenv(cds.CDS_ENV, "0")
    assert cds.spark_driver_opts() == []
