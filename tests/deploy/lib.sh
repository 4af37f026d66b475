# What the deploy test scripts share (sourced): a scratch directory $work and the background
# processes in $pids, both gone at exit; TAP-style `ok` lines and `fail`.
work=$(mktemp -d)
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$work"
}
trap cleanup EXIT

checked=0
ok() {
    checked=$((checked + 1))
    echo "ok $checked - $*"
}
fail() {
    echo "FAILED: $*" >&2
    exit 1
}
