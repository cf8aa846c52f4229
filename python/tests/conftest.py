"""pytest setup for python/: import paths, the codec fixture, repository paths.

Run from a build tree (ctest -L python does this), or by hand:
    PYTHONPATH=python:build/python MROCE_BUILD_DIR=build /usr/bin/python3 -m pytest -q python/tests
Tests that need the compiled codec (_mroce) skip when it is not importable.
"""

import os
import pathlib
import shutil
import sys

import pytest

PY_DIR = pathlib.Path(__file__).resolve().parents[1]
REPO = PY_DIR.parent
if str(PY_DIR) not in sys.path:
    sys.path.insert(0, str(PY_DIR))
_build = os.environ.get("MROCE_BUILD_DIR")
if _build and os.path.join(_build, "python") not in sys.path:
    sys.path.append(os.path.join(_build, "python"))

from mroce import codec as _codec  # noqa: E402

VECTORS_DIR = REPO / "reference" / "wire" / "tests" / "vectors"
LUA_DISSECTOR = REPO / "tools" / "wireshark" / "mroce.lua"


@pytest.fixture(scope="session")
def codec():
    if not _codec.available():
        if os.environ.get("MROCE_REQUIRE_CODEC") == "1":   # set by ctest when _mroce is a target
            pytest.fail("_mroce was built by this tree but cannot be imported: %s"
                        % _codec.import_error)
        pytest.skip("_mroce not built (%s); build with: ninja -C <build> _mroce"
                    % _codec.import_error)
    return _codec


@pytest.fixture(scope="session")
def tshark():
    path = shutil.which("tshark")
    if path is None:
        pytest.skip("tshark not installed")
    return path
