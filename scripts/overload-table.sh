#!/usr/bin/env bash
# The README's "Overload" tables, each row the mean over SEEDS (1 2 3).
#
# 1. Mechanisms: ten fixed servers of geometric service, mean 100 cycles
#    (capacity 0.1 arrivals a cycle), no wave, an empty start, no blocked
#    sources, clients that give up after 1,000 cycles and retry three
#    times; offered 0.8, 1.0 and 1.3 times capacity; CYCLES cycles
#    (100,000). Per mechanism (a line of MECHANISMS: a label, then the
#    settings it adds) and load: goodput, response p99 of the requests
#    served, and the attempts shed, limited and throttled.
# 2. LIFO on one M/M/1 queue: one server of mean 10 at ρ 0.8, no client
#    side, MM1_CYCLES cycles (2,000,000): mean wait, wait p50 and p99.
# 3. The throttle against a backend of ten servers (mean 100) of which
#    servers 3..10 fail every attempt one cycle after taking it: the two
#    healthy ones can complete 0.02 a cycle; offered 0.1 with the client
#    side of table 1. Pooled, the first idle server takes the next attempt,
#    so the healthy servers take every attempt they can and the rest fail
#    fast; round-robin gives each server a tenth of the attempts, so the
#    accepts are a fixed fifth of what is sent. Counted over cycles
#    THROTTLE_CYCLES … 2 × THROTTLE_CYCLES (40,000 …; two runs of one seed
#    differ only by the second half): attempts sent (past the throttle),
#    accepts (attempts completed), their ratio (of the sums), throttled,
#    goodput.
#
# Usage: scripts/overload-table.sh [bin/lbsim]
set -euo pipefail
source "$(dirname "$0")/lbsim-arg.sh"
lbsim_arg "Usage: scripts/overload-table.sh [bin/lbsim]" "$@"
cycles=${CYCLES:-100000}
mm1_cycles=${MM1_CYCLES:-2000000}
throttle_cycles=${THROTTLE_CYCLES:-40000}
seeds=${SEEDS:-1 2 3}
err=$(mktemp)
trap 'rm -f "$err"' EXIT
client=(--timeout 1000 --retries 3)
base=(--servers 10 --min-servers 10 --max-servers 10 --service geometric --mean-service 100 --wave=false --initial-per-server 0 --block none)
mm1=(--servers 1 --min-servers 1 --max-servers 1 --service geometric --mean-service 10 --rate 0.08 --wave=false --initial-per-server 0 --block none)
failing=(--fault fail:3@1 --fault fail:4@1 --fault fail:5@1 --fault fail:6@1 --fault fail:7@1 --fault fail:8@1 --fault fail:9@1 --fault fail:10@1 --rate 0.1)

# runs prints, for each seed, the JSON summary of lbsim run with the flags
# given; a run that fails stops the script with its message.
runs() {
	for s in $seeds; do
		if ! "$lbsim" run "$@" --seed "$s" --quiet --json - 2>"$err"; then
			cat "$err" >&2
			exit 1
		fi
	done
}

# settings turns NAME=VALUE words into flags.
settings() {
	local kv
	flags=()
	for kv in "$@"; do flags+=("--${kv%%=*}" "${kv#*=}"); done
}

# table reads the JSON summaries on stdin into runs (n of them) and runs
# the Python code given as $1, which prints the row, with mean(f) (f's mean
# over the runs) and arg ($2…) at hand.
table() {
	python3 -c "$read_runs"'
n = len(runs)
if n == 0:
    sys.exit("overload-table.sh: no run (SEEDS is empty)")
mean = lambda f: sum(f(r) for r in runs) / n
arg = sys.argv[2:]
exec(sys.argv[1])
' "$@"
}

echo "| load | mechanism | settings | goodput | response p99 | shed | limited | throttled |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for load in 0.8 1.0 1.3; do
	rate=$(python3 -c "print(round($load * 0.1, 6))")
	while read -r label words; do
		settings $words
		runs "${base[@]}" "${client[@]}" --cycles "$cycles" --rate "$rate" "${flags[@]}" | table 'print("| %s× | %s | %s | %.4f | %.0f | %.0f | %.0f | %.0f |" % (arg[0], arg[1], " ".join("--" + w.replace("=", " ", 1) for w in arg[2].split()),
    mean(lambda r: r["goodput"]), mean(lambda r: r["response_p99"]),
    mean(lambda r: r["shed"]), mean(lambda r: r["limited"]), mean(lambda r: r["throttled"])))' "$load" "$label" "$words"
	done <<'MECHANISMS'
fifo discipline=fifo
lifo discipline=lifo
adaptive-lifo+codel discipline=adaptive-lifo codel-target=50
fixed-limit concurrency-limit=fixed:20
aimd-limit concurrency-limit=aimd limit-latency=500
throttle throttle=2
MECHANISMS
done

echo
echo "| discipline | mean wait | wait p50 | wait p99 |"
echo "|---|---:|---:|---:|"
for d in fifo lifo; do
	runs "${mm1[@]}" --cycles "$mm1_cycles" --discipline "$d" | table 'print("| %s | %.2f | %.0f | %.0f |" % (arg[0],
    mean(lambda r: r["avg_wait"]), mean(lambda r: r["wait_p50"]), mean(lambda r: r["wait_p99"])))' "$d"
done

echo
echo "| backend | throttle | sent | accepts | sent ÷ accepts | throttled | goodput |"
echo "|---|---|---:|---:|---:|---:|---:|"
while read -r backend throttle words; do
	settings $words
	flags+=("${base[@]}" "${client[@]}" "${failing[@]}" --throttle "$throttle")
	# The first half's run, then the whole one, seed by seed: the row is
	# their difference.
	for c in "$throttle_cycles" "$((2 * throttle_cycles))"; do
		runs "${flags[@]}" --cycles "$c"
	done | table '
# The runs come seed by seed: the first halves, then the whole runs.
half = n // 2
diff = lambda f: sum(f(r) for r in runs[half:]) - sum(f(r) for r in runs[:half])
sent, acc = diff(lambda r: r["attempts"] - r["throttled"]), diff(lambda r: r["attempts_completed"])
span = runs[-1]["cycles"] - runs[0]["cycles"]
print("| %s | %s | %.0f | %.0f | %.2f | %.0f | %.4f |" % (arg[0], arg[1], sent / half, acc / half, sent / max(acc, 1),
    diff(lambda r: r["throttled"]) / half, diff(lambda r: r["completed"]) / half / span))
' "$backend" "$throttle"
done <<'BACKENDS'
pooled 0
pooled 2
round-robin 0 queues=per-server policy=round-robin
round-robin 2 queues=per-server policy=round-robin
BACKENDS
