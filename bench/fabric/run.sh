#!/usr/bin/env bash
# Runs mroce-fabric-bench and its ns-3 twin on the same topology and traffic, prints frame-hops
# per CPU second side by side with the ratio (goal: mroce >= 10x ns-3).
#
# Usage: bench/fabric/run.sh [BUILD_DIR]   (default: build). Needs the targets mroce-fabric-bench
# and mroce-fabric-bench-ns3 (the latter only when ns-3 is installed:
# DEBIAN_FRONTEND=noninteractive apt-get install -y libns3-dev ns3).
# Env: MROCE_US (simulated us for mroce, default 10000), NS3_US (default 500: ns-3 is slow),
#      LOAD (default 0.4), HOSTS/PLANES/SPINES/HPL (16/2/4/4).
set -euo pipefail
build="${1:-build}"
bin="$build/bench/fabric"
hosts="${HOSTS:-16}" planes="${PLANES:-2}" spines="${SPINES:-4}" hpl="${HPL:-4}" load="${LOAD:-0.4}"
mroce_out=$("$bin/mroce-fabric-bench" --hosts "$hosts" --planes "$planes" --spines "$spines" \
  --hosts-per-leaf "$hpl" --load "$load" --duration-us "${MROCE_US:-10000}")
echo "$mroce_out"
mroce=$(echo "$mroce_out" | awk '/^RESULT mroce/ {print $4}')
if [[ ! -x "$bin/mroce-fabric-bench-ns3" ]]; then
  echo "ns-3 twin not built (install libns3-dev ns3 and rebuild); mroce: $mroce frame-hops/CPU-s"
  exit 0
fi
ns3_out=$("$bin/mroce-fabric-bench-ns3" --hosts="$hosts" --planes="$planes" --spines="$spines" \
  --hostsPerLeaf="$hpl" --load="$load" --durationUs="${NS3_US:-500}" 2>&1)
echo "$ns3_out"
ns3=$(echo "$ns3_out" | awk '/^RESULT ns3/ {print $4}')
printf '\n%-10s %22s\n' "simulator" "frame-hops per CPU s"
printf '%-10s %22s\n' "mroce" "$mroce" "ns-3.37" "$ns3"
awk -v a="$mroce" -v b="$ns3" 'BEGIN { printf "ratio      %21.1fx  (goal >= 10x)\n", a / b }'
