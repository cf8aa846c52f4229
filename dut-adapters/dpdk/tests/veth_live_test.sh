#!/bin/bash
# `--dut dpdk:` end to end: mroce-refd runs in a network namespace behind veth pairs; the harness
# opens the root-namespace ends with DPDK (net_af_packet) and runs cases live through them:
# - placement.e2e.* on one port (plane 0): all must PASS, as they do with `--dut reference`;
# - the whole suite on two ports (one per plane), scripted cases included: every case that runs
#   gives the simulation's verdict (compare_live.py: inconclusive only where the live run says why).
#   The raw_frames cases run here (the ethdev carries whole frames, checksums adjusted for the
#   on-wire addresses, not repaired): a bad UDP checksum must reach the DUT's kernel and be dropped.
#   One case must FAIL (or be inconclusive if the host starved it): the DUT's veth end has no VLAN
#   interface, so its kernel drops the 802.1Q-tagged frame of framing.vlan.single-tag-accepted, and
#   the harness must say so.
# The DUT's ends of the veths must have carried the traffic. Exit 77 (ctest SKIP) when root, netns,
# veth or the DPDK EAL are unavailable, or when the host was too loaded to judge more than 3 cases.
#
#   veth_live_test.sh MROCE_CTS MROCE_REFD SUITE WORKDIR
set -u
CTS=$1 REFD=$2 SUITE=$3 WORK=$4
HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (network namespaces, veth)"
command -v ip >/dev/null || skip "no 'ip' command (iproute2)"

NS=mroce-dd-$$
VH0=mdh0$$ VD0=mdd0$$ VH1=mdh1$$ VD1=mdd1$$  # interface names stay under 16 characters
NET=198.18.0.0                                # plane p of host 0 (the DUT) is net + 256 p + 1
cleanup() {
  ip netns del "$NS" 2>/dev/null
  ip link del "$VH0" 2>/dev/null
  ip link del "$VH1" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
rm -rf "$WORK" && mkdir -p "$WORK" || exit 1

ip netns add "$NS" 2>/dev/null || skip "cannot create a network namespace"
for p in 0 1; do
  VH=mdh$p$$ VD=mdd$p$$
  ip link add "$VH" mtu 9000 type veth peer name "$VD" mtu 9000 2>/dev/null || skip "cannot create a veth pair"
  echo 1 > /proc/sys/net/ipv6/conf/"$VH"/disable_ipv6 2>/dev/null  # keep the harness's ports quiet
  ip link set "$VD" netns "$NS" || exit 1
  ip -n "$NS" addr add "198.18.$p.1/24" dev "$VD" || exit 1
  ip -n "$NS" link set "$VD" up || exit 1
  ip link set "$VH" up || exit 1
done
ip -n "$NS" link set lo up || exit 1

EAL="--no-huge --no-pci -m 512 --no-shconf --file-prefix mroce-dd-$$ --log-level=error"
AFP="framesz=8192,blocksz=8192,framecnt=512"  # af_packet's default 2 KB frames are too small
CONTROL="ip netns exec $NS $REFD"
DUT1="dpdk:port=net_af_packet0,iface=$VH0,$AFP,eal=$EAL,net=$NET,control=$CONTROL"
DUT2="dpdk:port0=net_af_packet0,iface=$VH0,$AFP,port1=net_af_packet1,iface=$VH1,$AFP,eal=$EAL,net=$NET,control=$CONTROL"

# run NAME FILTER DUT: the cases through --dut reference and through DUT, which must all PASS.
run() {
  local name=$1 filter=$2 dut=$3 rc
  "$CTS" run -q --suite "$SUITE" --filter "$filter" --dut reference --out "$WORK/$name-ref" > "$WORK/$name-ref.log" 2>&1
  rc=$?
  [ $rc = 0 ] || { cat "$WORK/$name-ref.log"; echo "FAIL: the reference run of $filter exited $rc"; exit 1; }
  "$CTS" run -q --suite "$SUITE" --filter "$filter" --dut "$dut" --out "$WORK/$name" > "$WORK/$name.log" 2>&1
  rc=$?
  cat "$WORK/$name.log"
  if [ $rc != 0 ] && grep -q -e "EAL initialisation failed" -e "cannot create virtual device" "$WORK/$name.log"; then
    skip "the DPDK EAL or its af_packet driver is unavailable here"
  fi
  [ $rc = 0 ] || { echo "FAIL: the dpdk run of $filter exited $rc"; exit 1; }
  python3 - "$WORK/$name-ref/report.json" "$WORK/$name/report.json" <<'PY' || exit 1
import json, sys
ref = {t["id"]: t["verdict"] for t in json.load(open(sys.argv[1]))["tests"]}
live = json.load(open(sys.argv[2]))["tests"]
bad = [(t["id"], t["verdict"], t.get("reason", "")) for t in live if t["verdict"] != "pass" or ref.get(t["id"]) != "pass"]
for b in bad: print("FAIL: %s: %s %s" % b)
if len(live) < 3 or len(live) != len(ref): print("FAIL: %d cases ran through dpdk, %d with the reference" % (len(live), len(ref))); sys.exit(1)
print("%d cases PASS through the ethdev as with --dut reference" % len(live))
sys.exit(1 if bad else 0)
PY
}

# The traffic went over the wire: the DUT's end of each veth received frames.
rx() { ip -n "$NS" -s -j link show "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["stats64"]["rx"]["packets"])'; }

run one-port 'placement.e2e.*' "$DUT1"
rx0=$(rx "$VD0")
echo "plane 0 veth: $rx0 frames to the DUT"
[ "${rx0:-0}" -ge 50 ] || { echo "FAIL: too few frames crossed the plane-0 veth"; exit 1; }

# The whole suite on two ports, against the simulation's verdicts.
"$CTS" run -q --suite "$SUITE" --out "$WORK/sim" > "$WORK/sim.log" 2>&1 || { cat "$WORK/sim.log"; echo "FAIL: the simulated run failed"; exit 1; }
"$CTS" run -q -j 1 --suite "$SUITE" --dut "$DUT2" --out "$WORK/two-ports" > "$WORK/two-ports.log" 2>&1
rc=$?
cat "$WORK/two-ports.log"
[ $rc -le 1 ] && [ -f "$WORK/two-ports/report.json" ] || { echo "FAIL: the dpdk run of the suite exited $rc"; exit 1; }
/usr/bin/python3 "$HERE/../../tests/compare_live.py" "$WORK/sim/report.json" "$WORK/two-ports/report.json" --min-ran 150 \
  --expect "framing.udp.bad-checksum-dropped=pass:a raw_frames case: the bad UDP checksum reached the DUT's kernel, which dropped it" \
  --expect "framing.vlan.single-tag-accepted=fail:the DUT's veth end has no VLAN 5 interface, so its kernel drops the tagged frame"
rc=$?
[ $rc = 77 ] && skip "the host was too loaded to judge more than 3 cases (none was judged wrongly)"
[ $rc = 0 ] || { echo "FAIL: the dpdk run's verdicts are not the simulation's"; exit 1; }
rx1=$(rx "$VD1")
echo "plane 1 veth: $rx1 frames to the DUT"
[ "${rx1:-0}" -ge 50 ] || { echo "FAIL: too few frames crossed the plane-1 veth"; exit 1; }
echo PASS
