# What the table scripts share (source this file): lbsim_arg, their one
# check of their argument, and read_runs, their reader of lbsim's JSON.
#
# lbsim_arg USAGE ARGS… is called with the script's usage line and "$@":
# it sets lbsim to the program named (bin/lbsim when none is), after
# checking that one argument at most was given, that it runs and that it is
# lbsim; otherwise it says why after the usage line and exits 2.
lbsim_arg() {
	local usage=$1 version
	shift
	lbsim=${1:-bin/lbsim}
	if (($# > 1)); then
		echo "$usage: one argument at most, the lbsim to run (got $#)" >&2
		exit 2
	fi
	if ! version=$("$lbsim" version 2>/dev/null); then
		echo "$usage: $lbsim does not run (build it with make, or name the lbsim to use)" >&2
		exit 2
	fi
	if [[ $version != lbsim\ * ]]; then
		echo "$usage: $lbsim is not lbsim ('$lbsim version' does not say lbsim)" >&2
		exit 2
	fi
}

# read_runs is Python that reads the JSON summaries lbsim prints one after
# another on stdin into the list runs (json and sys imported); a script
# runs it ahead of its own code: python3 -c "$read_runs"'…'.
read_runs='
import json, sys
text, runs, dec, i = sys.stdin.read(), [], json.JSONDecoder(), 0
while text[i:].strip():
    r, i = dec.raw_decode(text, i + len(text[i:]) - len(text[i:].lstrip()))
    runs.append(r)'
