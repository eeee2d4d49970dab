#!/usr/bin/env bash
# Replaces the code block between the lines "<!-- NAME ... -->" and
# "<!-- /NAME -->" of FILE with standard input, so the README shows what a
# command printed. Usage: command | scripts/readme-block.sh FILE NAME
set -euo pipefail
file=$1 name=$2
grep -q "^<!-- $name" "$file" && grep -q "^<!-- /$name -->" "$file" || { echo "$file has no <!-- $name --> block" >&2; exit 2; }
body=$(mktemp)
trap 'rm -f "$body"' EXIT
{ echo '```'; cat; echo '```'; } >"$body"
awk -v name="$name" -v body="$body" '
  index($0, "<!-- " name) == 1 { print; while ((getline line < body) > 0) print line; skip = 1; next }
  index($0, "<!-- /" name " -->") == 1 { skip = 0 }
  !skip { print }
' "$file" >"$file.tmp"
mv "$file.tmp" "$file"
