#!/usr/bin/env bash
# The README's "Many balancers" table: a fixed pool of 100 per-server
# queues, geometric service of mean 100, 0.9 arrivals a cycle (90% load),
# CYCLES cycles (2,000,000) for each of SEEDS (1 2 3); prints one markdown
# row per setting: mean wait, p99 wait (the mean over the seeds) and
# max_share. Usage: scripts/fleet-table.sh [bin/lbsim]
set -euo pipefail
source "$(dirname "$0")/lbsim-arg.sh" # read_runs
lbsim=${1:-bin/lbsim}
cycles=${CYCLES:-2000000}
seeds=${SEEDS:-1 2 3}
base=(--queues per-server --servers 100 --min-servers 100 --max-servers 100 --service geometric
	--mean-service 100 --rate 0.9 --wave=false --initial-per-server 0 --block none --cycles "$cycles" --quiet)
echo "| policy | balancers | load information | mean wait | p99 wait | max share |"
echo "|---|---|---|---|---|---|"
while read -r policy k info; do
	flags=(--policy "$policy" --balancers "$k")
	[ "$info" = exact ] || flags+=(--load-info "$info")
	for s in $seeds; do
		"$lbsim" run "${base[@]}" "${flags[@]}" --seed "$s" --json - 2>/dev/null
	done | python3 -c "$read_runs"'
n = len(runs)
mean = lambda k: sum(r[k] for r in runs) / n
print("| %s | %s | %s | %.0f | %.0f | %.3f |" % (sys.argv[1], sys.argv[2], sys.argv[3], mean("avg_wait"), mean("wait_p99"), mean("max_share")))
' "$policy" "$k" "$info"
done <<'ROWS'
random 1 exact
random 100 exact
least-connections 1 exact
least-connections 100 exact
least-connections 10 local
least-connections 100 local
least-connections 10 periodic:1000
p2c 1 exact
p2c 10 local
p2c 100 local
p2c 10 periodic:1000
jiq 1 exact
jiq 10 exact
jiq 100 exact
ROWS
