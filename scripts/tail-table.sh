#!/usr/bin/env bash
# The README's "Tail at scale" tables, measured with lbsim mmc (theory
# beside): a fixed pool of 200 per-server queues routed by
# least-connections, geometric service of mean 100 cycles.
#
# 1. Low load: the same requests (0.0015 a cycle) for every fan-out K = 1,
#    5, 20 and 64 (a server's load 0.075% … 4.8%), without hedging and with
#    one hedge after a part's p95 (299 cycles = ⌈ln 0.05 ÷ ln 0.99⌉);
#    LOW_CYCLES cycles (10,000,000) for each seed. Theory: F(t)^K, hedged or
#    not (P(part > t) = (1 − F(t))·(1 − F(t − D))).
# 2. High load: fan-out 20 at a server's load 0.5, 0.8 and 0.9, without
#    hedging, hedging after 299 cycles with no budget and with a budget of
#    5%; HIGH_CYCLES cycles (2,000,000) for each seed. No closed form.
#
# Each row is the mean over SEEDS (1 2 3): request p50 and p99 in cycles,
# attempts per request (attempts ÷ admitted), over the whole run. Usage:
# scripts/tail-table.sh [bin/lbsim]
set -euo pipefail
source "$(dirname "$0")/lbsim-arg.sh"
lbsim_arg "Usage: scripts/tail-table.sh [bin/lbsim]" "$@"
low_cycles=${LOW_CYCLES:-10000000}
high_cycles=${HIGH_CYCLES:-2000000}
seeds=${SEEDS:-1 2 3}
base=(--servers 200 --service geometric --mean-service 100 --queues per-server --policy least-connections)
help=$("$lbsim" mmc --help 2>&1)
if ! grep -q -- --fanout <<<"$help"; then
	echo "$lbsim mmc has no --fanout: build lbsim with fan-out first" >&2
	exit 2
fi
hedges="none 299"
if ! grep -q -- --hedge-after <<<"$help"; then
	echo "$lbsim mmc has no --hedge-after: the rows with hedging are left out" >&2
	hedges=none
fi

# rows runs lbsim mmc for each seed with the flags given and prints the
# mean measured values and the theory as one JSON line; a run that fails
# (an unstable load stops at --max-queued) gives its message instead.
err=$(mktemp)
trap 'rm -f "$err"' EXIT
rows() {
	for s in $seeds; do
		if ! "$lbsim" mmc "${base[@]}" "$@" --seed "$s" --json - 2>"$err"; then
			python3 -c 'import json, sys; print(json.dumps({"failed": open(sys.argv[1]).read().strip()}))' "$err"
		fi
	done | python3 -c "$read_runs"'
failed = [r["failed"] for r in runs if "failed" in r]
if failed:
    print(json.dumps({"failed": "%d of %d runs stopped: %s" % (len(failed), len(runs), failed[0])}))
    sys.exit()
resp = [r["measured"]["response"] for r in runs]
mean = lambda k: sum(x[k] for x in resp) / len(resp)
low = runs[0]["tail"].get("low_load")
print(json.dumps({"p50": mean("response_p50"), "p99": mean("response_p99"), "attempts": mean("attempts_per_request"),
                  "load": runs[0]["tail"]["load"], "theory": low}))
'
}

echo "| fan-out K | hedging | request p50 (theory) | request p99 (theory) | attempts per request (theory) | theory: within a part's p99 |"
echo "|---|---|---|---|---|---|"
for k in 1 5 20 64; do
	for hedge in $hedges; do
		flags=(--rate 0.0015 --fanout "$k" --cycles "$low_cycles")
		[ "$hedge" = none ] || flags+=(--hedge-after "$hedge")
		rows "${flags[@]}" | python3 -c '
import json, sys
r, k, hedge = json.loads(sys.stdin.read()), sys.argv[1], sys.argv[2]
if "failed" in r:
    sys.exit("K = %s, hedging %s: %s" % (k, hedge, r["failed"]))
t = r["theory"]
if t is None:
    sys.exit("no low-load theory for K = %s, hedging %s" % (k, hedge))
print("| %s | %s | %.0f (%d) | %.0f (%d) | %.3f (%.3f) | %.3f |" % (k, "none" if hedge == "none" else "after " + hedge,
      r["p50"], t["request_p50"], r["p99"], t["request_p99"], r["attempts"], t["attempts_per_request"], t["within_part_p99"]))
' "$k" "$hedge"
	done
done
echo
echo "| load ρ | hedging | request p50 | request p99 | attempts per request |"
echo "|---|---|---|---|---|"
for rho in 0.5 0.8 0.9; do
	rate=$(python3 -c "print($rho * 200 / (20 * 100))")
	high=(none unbudgeted 5%)
	[ "$hedges" != none ] || high=(none)
	for hedge in "${high[@]}"; do
		flags=(--rate "$rate" --fanout 20 --cycles "$high_cycles")
		case $hedge in
		unbudgeted) flags+=(--hedge-after 299) ;;
		5%) flags+=(--hedge-after 299 --hedge-budget 0.05) ;;
		esac
		rows "${flags[@]}" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
if "failed" in r:
    print("| %s | %s | unstable | unstable | — |" % (sys.argv[1], sys.argv[2]))
    print(r["failed"], file=sys.stderr)
else:
    print("| %s | %s | %.0f | %.0f | %.3f |" % (sys.argv[1], sys.argv[2], r["p50"], r["p99"], r["attempts"]))
' "$rho" "$hedge"
	done
done
