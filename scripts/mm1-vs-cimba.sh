#!/usr/bin/env bash
# mm1-vs-cimba.sh CIMBA [ROUNDS] — runs lbsim's M/M/1 benchmark beside
# Cimba's (github.com/ambonvik/cimba, benchmark/MM1_single: an M/M/1 at
# ρ 0.9, one million customers) in turn, ROUNDS times (7 by default), and
# prints each one's median CPU nanoseconds a customer.
#
# CIMBA is a Cimba checkout. Its release build needs meson, ninja and nasm;
# with gcc 12 its sources also need stdbool.h and assert.h included (the
# -Dc_args below). A prebuilt MM1_single can be given instead as
# MM1_SINGLE=path. lbsim runs BenchmarkMM1 (pooled and per-server, mean
# service 10, 100 and 1,000 cycles) with 900,000 customers, the most the
# billion-cycle bound lets mean 1,000 take.
set -euo pipefail
cimba=${1:?usage: scripts/mm1-vs-cimba.sh CIMBA [ROUNDS]}
rounds=${2:-7}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mm1=${MM1_SINGLE:-}
if [ -z "$mm1" ]; then
	if [ ! -x "$cimba/build-lbsim/benchmark/MM1_single" ]; then
		(cd "$cimba" && meson setup build-lbsim --buildtype=release \
			-Dc_args='-include stdbool.h -include assert.h' >/dev/null &&
			ninja -C build-lbsim benchmark/MM1_single >/dev/null)
	fi
	mm1=$cimba/build-lbsim/benchmark/MM1_single
fi
(cd "$root" && go test -c -o "$work/sim.test" ./sim/)
for _ in $(seq "$rounds"); do
	# Cimba: the processes' user and system time over five runs of its
	# million (time counts in hundredths of a second).
	/usr/bin/time -f '%U %S' -o "$work/time" sh -c 'for i in 1 2 3 4 5; do "$0" >/dev/null; done' "$mm1"
	awk '{printf "cimba %.1f\n", ($1 + $2) * 1e9 / 5e6}' "$work/time" >>"$work/cpu.txt"
	"$work/sim.test" -test.run '^$' -test.bench '^BenchmarkMM1$' -test.benchtime 1x \
		-mm1.customers 900000 | awk '/^BenchmarkMM1/ {
			for (i = 1; i <= NF; i++) if ($(i+1) == "cpu-ns/customer") {
				name = $1; sub(/^BenchmarkMM1\//, "", name); sub(/-[0-9]+$/, "", name)
				print name, $i
			}
		}' >>"$work/cpu.txt"
done
echo "median CPU ns a customer over $rounds rounds run in turn:"
sort -k1,1 -k2,2n "$work/cpu.txt" | awk '
	{ v[$1] = v[$1] " " $2; n[$1]++ }
	END { for (k in v) { split(substr(v[k], 2), a, " "); printf "%-22s %8.1f\n", k, a[int((n[k] + 1) / 2)] } }' | sort
