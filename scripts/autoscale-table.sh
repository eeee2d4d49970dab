#!/usr/bin/env bash
# The README's "Autoscalers" table: the default wave (0.8..3.2 arrivals a
# cycle around a mean of 2, uniform service 10..80, so about 90 servers busy
# on average) from 40 servers, clients that give up after 400 cycles,
# servers at 0.01 a server-cycle, CYCLES cycles (100,000) for each of SEEDS
# (1 2 3). One markdown row per autoscaler setting, the mean over the
# seeds: mean servers, the pool's range, cost, scale events (ups + downs),
# p95 wait, p95 response, goodput. Usage: scripts/autoscale-table.sh [bin/lbsim]
set -euo pipefail
source "$(dirname "$0")/lbsim-arg.sh"
lbsim_arg "Usage: scripts/autoscale-table.sh [bin/lbsim]" "$@"
cycles=${CYCLES:-100000}
seeds=${SEEDS:-1 2 3}
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
base=(--servers 40 --rate 2 --timeout 400 --server-cost 0.01 --cycles "$cycles" --quiet)
echo "| autoscaler | settings | mean servers | pool min–peak | cost | scale events | p95 wait | p95 response | goodput |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
while read -r rule settings; do
	flags=(--autoscaler "$rule")
	for kv in $settings; do flags+=("--${kv%%=*}" "${kv#*=}"); done
	for s in $seeds; do
		# The summary goes to stderr beside --json -: shown only if the run fails.
		if ! "$lbsim" run "${base[@]}" "${flags[@]}" --seed "$s" --json - 2>"$errors"; then
			cat "$errors" >&2
			exit 1
		fi
	done | python3 -c "$read_runs"'
n = len(runs)
if n == 0:
    sys.exit("autoscale-table.sh: no run for the row %s %s (SEEDS is empty, or a run failed above)" % (sys.argv[1], sys.argv[2]))
mean = lambda f: sum(f(r) for r in runs) / n
print("| %s | %s | %.1f | %.0f–%.0f | %.0f | %.0f | %.0f | %.0f | %.3f |" % (
    sys.argv[1], sys.argv[2].replace("=", " "),
    mean(lambda r: r["server_cycles"] / r["cycles"]),
    mean(lambda r: r["servers_min"]), mean(lambda r: r["servers_peak"]),
    mean(lambda r: r["cost"]), mean(lambda r: r["scale_ups"] + r["scale_downs"]),
    mean(lambda r: r["wait_p95"]), mean(lambda r: r["response_p95"]), mean(lambda r: r["goodput"])))
' "$rule" "$settings"
done <<'ROWS'
queue scale-up=80 scale-down=50
queue scale-up=20 scale-down=10
queue scale-up=5 scale-down=2
target scale-target=0.5
target scale-target=0.7
target scale-target=0.9
target scale-target=0.7 scale-down-window=0
target scale-target=0.7 scale-down-window=1200
target scale-target=0.95
target scale-target=0.95 scale-tolerance=0.05
ROWS
