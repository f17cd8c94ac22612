# SPDX-License-Identifier: BSD-3-Clause
# What the CLI tests share; sourced after MCT (the mctally binary) is set.
# Gives a scratch directory $work (removed on exit), a failure count and:
#   fail MESSAGE                    counts and prints a failure
#   expect_error NAME PATTERN ARGS  `$MCT ARGS --out DIR` must exit non-zero with
#                                   one line on stderr holding PATTERN, and
#                                   write no DIR/result.json
#   expect_bad_ini NAME PATTERN [ARGS]
#                                   the problem file on stdin, as $work/NAME.ini:
#                                   `run` of it (with ARGS) must fail as
#                                   expect_error says
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_error() {
    local name=$1 pattern=$2
    shift 2
    local out="$work/out_$name"
    if "$MCT" "$@" --out "$out" >"$work/stdout" 2>"$work/stderr"; then
        fail "$name: exit 0"
    elif ! grep -q -- "$pattern" "$work/stderr"; then
        fail "$name: message lacks '$pattern': $(cat "$work/stderr")"
    elif [ -e "$out/result.json" ]; then
        fail "$name: result.json written"
    elif [ "$(wc -l <"$work/stderr")" -ne 1 ]; then
        fail "$name: expected one line of error, got: $(cat "$work/stderr")"
    else
        echo "ok: $name -> $(cat "$work/stderr")"
    fi
}

expect_bad_ini() {
    local name=$1 pattern=$2
    shift 2
    cat >"$work/$name.ini"
    expect_error "$name" "$pattern" run "$work/$name.ini" "$@"
}
