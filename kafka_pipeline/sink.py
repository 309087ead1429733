"""The Parquet sink: published ranges, staging, and atomic publication.

Layout under the output path (Hive style, so ``spark.read.parquet(path)`` finds every record,
with ``topic``, ``partition`` and ``offsets`` from the directory names)::

    topic=<topic>/partition=<p>/offsets=<start>-<end>/part-*.parquet   published ranges
    _staging/<run id>/...                                              a run's unpublished files
    _superseded/<run id>/topic=<topic>/partition=<p>/offsets=...      ranges a reset replaced

Spark skips paths that start with ``_`` when it reads the output. Publication is one directory
rename per range through Hadoop's FileSystem API, so the same code works on a local path
(``file:``) and on HDFS, where a rename is atomic. On object stores without atomic renames
(S3A), a range can be seen half-moved while a run publishes; the guarantee is then only as
strong as the store's rename.
"""

from __future__ import annotations

import re
from typing import Any

from kafka_pipeline.plan import Range

# A range's path in a listing ("Array(file:/o/topic=t/partition=0/offsets=0-30, ...)").
_LISTED = re.compile(r"/partition=(\d+)/offsets=(\d+)-(\d+)(?=, |\)$)")
TopicPartition = tuple[str, int]


class Sink:
    def __init__(self, spark: Any, root: str) -> None:
        self.spark = spark
        jvm = spark.sparkContext._jvm
        self._Path = jvm.org.apache.hadoop.fs.Path
        self.root = self._Path(root)
        self.fs = self.root.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
        self.fs.mkdirs(self.root)
        self.uri = self.fs.makeQualified(self.root).toString()
        self._staging_root = self._Path(self.root, "_staging")
        self._known: dict[str, dict[TopicPartition, set[Range]]] = {}  # topic -> its ranges
        self._made: set[TopicPartition] = set()  # partitions whose directory this Sink made

    def range_path(self, tp: TopicPartition, published: Range) -> Any:
        return self._Path(
            self.root, f"topic={tp[0]}/partition={tp[1]}/offsets={published.start}-{published.end}"
        )

    def staging(self, run_id: str) -> str:
        """A run's staging directory (made in Python: no call into the JVM)."""
        return f"{self.uri.rstrip('/')}/_staging/{run_id}"

    def published(self, topics: set[str]) -> dict[TopicPartition, list[Range]]:
        """The published ranges of each partition of ``topics`` that this Sink has not let go of
        (:meth:`keep_after`). A topic is listed once, its paths handed over from the JVM as one
        string; after that this Sink's own publications and supersessions keep it current (one run
        at a time per output path), so a service's landings do not list a sink that grows by a
        directory per partition and landing."""
        for topic in sorted(set(topics) - set(self._known)):
            self._known[topic] = self._list(topic)
        return {tp: sorted(ranges) for t in topics for tp, ranges in self._known[t].items() if ranges}

    def _list(self, topic: str) -> dict[TopicPartition, set[Range]]:
        found: dict[TopicPartition, set[Range]] = {}
        jvm = self.spark.sparkContext._jvm
        # Kafka topic names ([a-zA-Z0-9._-]) hold no character Hadoop's globs give a meaning.
        statuses = self.fs.globStatus(self._Path(self.root, f"topic={topic}/partition=*/offsets=*"))
        if statuses is not None:
            paths = jvm.org.apache.hadoop.fs.FileUtil.stat2Paths(statuses)
            listed = str(jvm.scala.runtime.ScalaRunTime.stringOf(paths))  # "Array(p1, p2, ...)"
            for partition, start, end in _LISTED.findall(listed):
                found.setdefault((topic, int(partition)), set()).add(Range(int(start), int(end)))
        return found

    def forget(self, topics: set[str] | None = None) -> None:
        """List ``topics`` (all by default) again at the next :meth:`published`."""
        for topic in list(self._known) if topics is None else topics:
            self._known.pop(topic, None)
        self._made = {tp for tp in self._made if topics is not None and tp[0] not in topics}

    def keep_after(self, ends: dict[TopicPartition, int]) -> None:
        """Let go of the ranges that end at or before ``ends`` (the offsets just committed as the
        pipeline's own): a run that starts at its own commit never looks at them, and one that
        does not (a reset) lists the topic again."""
        for tp, end in ends.items():
            ranges = self._known.get(tp[0], {}).get(tp)
            if ranges:
                ranges.difference_update({r for r in ranges if r.end <= end})

    def _remember(self, tp: TopicPartition, published: Range, there: bool) -> None:
        if tp[0] in self._known:
            ranges = self._known[tp[0]].setdefault(tp, set())
            if there:
                ranges.add(published)
            else:
                ranges.discard(published)

    def clear_staging(self) -> None:
        """Files a stopped run left unpublished; no range refers to them."""
        self.fs.delete(self._staging_root, True)

    def publish(self, staged: str, tp: TopicPartition, landed: Range) -> bool:
        """Move a staged directory into place as ``landed`` (replacing an unpublished copy).
        False, with nothing published, when there is no such staged directory: the write
        staged nothing for the range (the caller stages an empty file and publishes again).
        The directory is not looked for beforehand: a rename that fails is (3 calls into the
        JVM per range where all went well, against a listing of the staging directory)."""
        target = self.range_path(tp, landed)
        known = self._known.get(tp[0])
        there = landed in known.get(tp, ()) if known is not None else bool(self.fs.exists(target))
        source = self._Path(staged)
        if there:  # published by a run that stopped before committing
            self.fs.delete(source, True)
            self._remember(tp, landed, True)
            return True
        if tp not in self._made:
            self.fs.mkdirs(target.getParent())
            self._made.add(tp)
        try:
            # Hadoop's local file system answers a missing source with an exception (its rename
            # falls back to a copy); HDFS answers False.
            moved = bool(self.fs.rename(source, target))
        except Exception:
            if not self.fs.exists(source):
                return False
            raise
        if not moved:
            if not self.fs.exists(source):
                return False
            raise OSError(f"could not publish {staged} as {target.toString()}")
        self._remember(tp, landed, True)
        return True

    def supersede(self, run_id: str, tp: TopicPartition, old: Range) -> None:
        source = self.range_path(tp, old)
        target = self._Path(
            self.root, f"_superseded/{run_id}/topic={tp[0]}/partition={tp[1]}/offsets={old.start}-{old.end}"
        )
        self.fs.mkdirs(target.getParent())
        if not self.fs.rename(source, target):
            raise OSError(f"could not move {source.toString()} aside")
        self._remember(tp, old, False)

    def exists(self, tp: TopicPartition, published: Range) -> bool:
        return bool(self.fs.exists(self.range_path(tp, published)))
