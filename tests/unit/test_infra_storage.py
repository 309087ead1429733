"""infra/cluster.py's kept storage: a plain cluster's nodes get the storage the release's tool
formatted once, with ids of their own; nothing is used that is not whole or not of these jars."""

from __future__ import annotations

from pathlib import Path

from infra import cluster

TOOL_META = (  # as StorageTool format writes it (4.3.1)
    "#\n#Sat Nov 28 11:47:42 UTC 2026\nnode.id=1\n"
    "directory.id=ZTmvmVXdNvkUC_GhwwnYGQ\nversion=1\ncluster.id=C6Rr\n"
)


def _release(root: Path, stamp: str = "4.3.1 abc") -> Path:
    libs = root / "libs"
    libs.mkdir(parents=True)
    (root / "libs.complete").write_text(stamp)
    return libs


def _formatted(folder: Path, meta: str = TOOL_META) -> Path:
    folder.mkdir(parents=True)
    (folder / "bootstrap.checkpoint").write_bytes(b"\x00\x01features")
    (folder / "meta.properties").write_text(meta)
    return folder


def _props(path: Path) -> dict[str, str]:
    lines = [x for x in path.read_text().splitlines() if x and not x.startswith("#")]
    return dict(x.split("=", 1) for x in lines)


def test_a_kept_storage_is_copied_with_the_nodes_own_ids(tmp_path):
    libs = _release(tmp_path / "4.3.1")
    cluster._keep_storage_template(libs, _formatted(tmp_path / "node-1" / "data"))
    template = cluster._storage_template(libs)
    assert template is not None
    ids = set()
    for node_id in (1, 2, 3):
        data = tmp_path / f"copy-{node_id}"
        cluster._storage_from_template(template, data, "NEWCLUSTER", node_id)
        assert (data / "bootstrap.checkpoint").read_bytes() == b"\x00\x01features"
        meta = _props(data / "meta.properties")
        assert meta.keys() == {"node.id", "directory.id", "version", "cluster.id"}
        assert (meta["node.id"], meta["cluster.id"], meta["version"]) == (str(node_id), "NEWCLUSTER", "1")
        ids.add(meta["directory.id"])
    assert len(ids) == 3 and "ZTmvmVXdNvkUC_GhwwnYGQ" not in ids


def test_a_release_without_directory_ids_gets_none(tmp_path):
    """Before 3.7 (KIP-858) meta.properties has no directory.id: none is added."""
    libs = _release(tmp_path / "3.6.2")
    cluster._keep_storage_template(libs, _formatted(tmp_path / "d", "version=1\nnode.id=1\ncluster.id=x\n"))
    template = cluster._storage_template(libs)
    assert template is not None
    cluster._storage_from_template(template, tmp_path / "n2", "C2", 2)
    assert _props(tmp_path / "n2" / "meta.properties") == {"version": "1", "node.id": "2", "cluster.id": "C2"}


def test_no_template_for_other_jars_or_an_unknown_layout(tmp_path):
    libs = _release(tmp_path / "4.3.1")
    cluster._keep_storage_template(libs, _formatted(tmp_path / "a"))
    (tmp_path / "4.3.1" / "libs.complete").write_text("4.3.1 other-pom")  # the jars were fetched again
    assert cluster._storage_template(libs) is None
    # The tool wrote something this code does not know: nothing is kept.
    other = _release(tmp_path / "4.4.0")
    odd = _formatted(tmp_path / "b")
    (odd / "__cluster_metadata-0").mkdir()
    cluster._keep_storage_template(other, odd)
    assert cluster._storage_template(other) is None
