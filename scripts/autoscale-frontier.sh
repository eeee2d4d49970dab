#!/usr/bin/env bash
# The README's autoscaler frontier (docs/autoscale-frontier.png): the
# table's wave (rate 2 from 40 servers, clients that give up after 400
# cycles, 0.01 a server-cycle) without the initial queue, swept over
# target tracking's target and window, REPLICATIONS (3) runs of CYCLES
# (100,000) each; lbsim plot frontier draws the p99 wait against the cost,
# a line per window. Usage: scripts/autoscale-frontier.sh [bin/lbsim]
set -euo pipefail
source "$(dirname "$0")/lbsim-arg.sh"
lbsim_arg "Usage: scripts/autoscale-frontier.sh [bin/lbsim]" "$@"
results=$(mktemp --suffix=.jsonl)
trap 'rm -f "$results"' EXIT
rm -f "$results"
"$lbsim" sweep --servers 40 --rate 2 --timeout 400 --initial-per-server 0 --server-cost 0.01 \
	--cycles "${CYCLES:-100000}" --autoscaler target --vary scale-target=0.5,0.6,0.7,0.8,0.85,0.9 \
	--vary scale-down-window=0,300,1200 --replications "${REPLICATIONS:-3}" --seed 1 --no-progress --out "$results"
"$lbsim" plot frontier "$results" --x cost --y wait_p99 --by scale-down-window --size 900x500 --out docs/autoscale-frontier.png
