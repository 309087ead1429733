"""scripts/setup on a machine without a JDK: it asks apt for the JDK (javac), not a JRE, and stops
loudly when javac is still missing afterwards. The script runs for real with a PATH that holds only
the few commands it needs before that point and an apt-get that records its arguments and installs
nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "scripts" / "setup"


def _bin(tmp_path: Path, extra: dict[str, str]) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("bash", "id", "env", "dirname"):
        found = shutil.which(tool)
        assert found, tool
        (bindir / tool).symlink_to(found)
    record = tmp_path / "apt.log"
    scripts = {
        "apt-get": f'#!{shutil.which("bash")}\necho "$*" >> {record}\n',
        "sudo": f'#!{shutil.which("bash")}\nexec "$@"\n',
        **extra,
    }
    for name, text in scripts.items():
        path = bindir / name
        path.write_text(text)
        path.chmod(0o755)
    return bindir


def _setup(bindir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bindir / "bash"), str(SETUP)],
        env={"PATH": str(bindir), "HOME": os.environ.get("HOME", "/tmp")},
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize(
    "present",
    [
        pytest.param({}, id="no-java"),
        pytest.param({"java": "#!/bin/false\n", "mvn": "#!/bin/false\n"}, id="jre-only"),
    ],
)
def test_setup_installs_a_jdk_and_fails_loudly_without_javac(tmp_path, present):
    bindir = _bin(tmp_path, present)
    result = _setup(bindir)
    installs = [line for line in (tmp_path / "apt.log").read_text().splitlines() if "install" in line]
    assert len(installs) == 1, installs
    packages = installs[0].split()
    assert "openjdk-17-jdk-headless" in packages
    assert not any("jre" in p for p in packages)
    assert ("maven" in packages) == ("mvn" not in present)
    assert result.returncode == 1
    missing = "javac" if "java" in present else "java"
    assert f"setup: {missing} is still not on PATH after installing" in result.stderr
    assert "creating .venv" not in result.stderr  # it stopped before the Python environment
