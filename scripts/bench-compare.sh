#!/usr/bin/env bash
# bench-compare.sh REV [COUNT] — compares the sim benchmarks of REV with the
# working tree. The two test binaries run in turn, COUNT times each (10 by
# default), so that the shared host's slow and fast spells fall on both;
# benchstat then prints the medians and the change.
set -euo pipefail
rev=${1:?usage: scripts/bench-compare.sh REV [COUNT]}
count=${2:-10}
root=$(git rev-parse --show-toplevel)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/old" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --quiet --detach "$work/old" "$rev"
(cd "$work/old" && go test -c -o "$work/old.test" ./sim/)
(cd "$root" && go test -c -o "$work/new.test" ./sim/)
for _ in $(seq "$count"); do
	for v in old new; do
		"$work/$v.test" -test.run '^$' -test.bench 'DefaultRun' -test.benchtime 100x >>"$work/$v.txt"
		"$work/$v.test" -test.run '^$' -test.bench 'LargePool' -test.benchtime 1x >>"$work/$v.txt"
		"$work/$v.test" -test.run '^$' -test.bench 'SparseRun|QueueMemory|Arrivals$' -test.benchtime 3x >>"$work/$v.txt"
	done
done
go run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da "$work/old.txt" "$work/new.txt"
