# The harness both hostile-input scripts source (run_hostile_test.sh, run_hostile2_test.sh): a scratch directory
# that is removed on exit and is the working directory, the counters, and `check`.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cd "$scratch" || exit 1
failures=0
count=0

# check NAME WANT_STATUS WANT_SUBSTRING -- COMMAND...: runs COMMAND (60 s at most), output to $scratch/out.txt.
check() {
  local name=$1 want=$2 text=$3
  shift 4
  count=$((count + 1))
  timeout 60 "$@" > out.txt 2>&1
  local status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL $name: exit status $status (want $want)"; head -5 out.txt; failures=$((failures + 1)); return
  fi
  if [ -n "$text" ] && ! grep -qF -- "$text" out.txt; then
    echo "FAIL $name: output lacks '$text':"; head -5 out.txt; failures=$((failures + 1)); return
  fi
}
