#!/usr/bin/python3
"""Dependencies point down only (docs/architecture.md, "Layers").

Checks, over the source tree:
  1. every #include "mroce/<component>/..." of a file is one its layer may use (the table below:
     each folder lists the header families it may include; its own family is always allowed);
  2. no CMakeLists.txt reaches out of its folder with '..' (add_subdirectory, include paths):
     the top-level CMakeLists.txt lists every component.
Prints every violation as file:line and exits 1 if there is one.

Usage: ci/check_layers.py [ROOT]
       ci/check_layers.py --selftest   (a planted violation of each rule must be reported)
"""
import os
import re
import sys

BASE = {"sim", "pcap"}  # harness/sim and harness/pcap: the base layer, usable by every component

# folder (longest prefix wins) -> header families (mroce/<family>/...) it may include
MAY_INCLUDE = {
    "harness/sim": set(),
    "harness/pcap": set(),
    "reference/wire": {"wire"},
    "reference/verbs": {"verbs"},
    "reference/endpoint": {"endpoint", "verbs", "wire"},
    "reference/rocev2": {"rocev2", "verbs", "wire"},
    "impairment": {"impairment", "wire"},
    "impairment/dpdk": {"impairment", "wire"},
    "bench/fabric": {"impairment", "wire"},
    "dut-adapters": {"dut", "endpoint", "rocev2", "impairment", "wire"},
    "dut-adapters/refd": {"dut", "endpoint", "wire"},
    "dut-adapters/dpdk": {"dut", "impairment", "wire", "endpoint"},
    "harness/model": {"harness", "impairment"},
    "harness/loader": {"harness", "impairment", "reports"},
    "reports": {"harness", "reports"},
    "harness/session": {"session", "harness", "dut", "endpoint", "rocev2", "impairment", "wire"},
    "harness/campaign": {"campaign", "session", "harness", "dut", "endpoint", "impairment", "wire", "reports"},
    "bench/scenarios": {"bench", "session", "harness", "dut", "endpoint", "impairment", "wire"},
    "harness/cli": None,  # the top: may use everything
    "python": None,
    "tools": None,
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"mroce/([a-z0-9_]+)/')
DOTDOT = re.compile(r'(add_subdirectory|include_directories|target_include_directories)\s*\([^)]*\.\./', re.S)


def layer_of(rel):
    best = None
    for folder in MAY_INCLUDE:
        if rel == folder or rel.startswith(folder + "/"):
            if best is None or len(folder) > len(best):
                best = folder
    return best


def selftest():
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "reference", "wire"))
        os.makedirs(os.path.join(root, "impairment"))
        with open(os.path.join(root, "reference", "wire", "x.cc"), "w") as f:
            f.write('#include "mroce/wire/frame.h"\n#include "mroce/dut/dut.h"\n')
        with open(os.path.join(root, "impairment", "y.h"), "w") as f:
            f.write('#include "mroce/sim/rng.h"\n#include "mroce/session/trace.h"\n')
        with open(os.path.join(root, "impairment", "CMakeLists.txt"), "w") as f:
            f.write("add_subdirectory(${CMAKE_CURRENT_SOURCE_DIR}/../harness/pcap pcap)\n")
        r = subprocess.run([sys.executable, __file__, root], capture_output=True, text=True)
        want = ["reference/wire/x.cc:2: reference/wire may not include mroce/dut/",
                "impairment/y.h:2: impairment may not include mroce/session/",
                "impairment/CMakeLists.txt:1: reaches out of its folder"]
        missing = [w for w in want if w not in r.stdout]
        if r.returncode != 1 or missing or "2 source files checked, 3 violation(s)" not in r.stdout:
            print(r.stdout + "check_layers --selftest: FAILED (missing: %s)" % missing)
            return 1
    print("check_layers --selftest: ok (3 planted violations reported)")
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--selftest":
        return selftest()
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    bad = []
    checked = 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and not d.startswith("build")]
        for name in filenames:
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if name == "CMakeLists.txt":
                text = open(path, encoding="utf-8").read()
                for m in DOTDOT.finditer(text):
                    line = text.count("\n", 0, m.start()) + 1
                    bad.append("%s:%d: reaches out of its folder with '..' (list the component in the top-level CMakeLists.txt)" % (rel, line))
                continue
            if not name.endswith((".h", ".cc", ".c", ".cpp")):
                continue
            layer = layer_of(os.path.dirname(rel))
            if layer is None or MAY_INCLUDE[layer] is None:
                continue
            allowed = MAY_INCLUDE[layer] | BASE
            checked += 1
            with open(path, encoding="utf-8", errors="replace") as f:
                for n, text in enumerate(f, 1):
                    m = INCLUDE.match(text)
                    if m and m.group(1) not in allowed:
                        bad.append("%s:%d: %s may not include mroce/%s/ (it may use: %s)"
                                   % (rel, n, layer, m.group(1), ", ".join(sorted(allowed))))
    for b in bad:
        print(b)
    print("check_layers: %d source files checked, %d violation(s)" % (checked, len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
