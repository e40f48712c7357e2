# Sourced by the GPU-machine fuzz scripts (device_campaign.sh, g9_device.sh), which set $tilesim, $jobs and $out
# first: the shared set-up and one time-bounded `tilesim fuzz --engine gpu` campaign, so the two scripts run and
# report their campaigns the same way.

# Creates $out/regressions, records the GPU (nvidia-smi.txt) and sets status=0.
device_prepare() {
  mkdir -p "$out/regressions"
  export OMP_WAIT_POLICY=passive
  nvidia-smi -L >"$out/nvidia-smi.txt" 2>&1
  status=0
}

# run_campaign NAME PROFILE SECONDS SEED: writes $out/fuzz-gpu-NAME.txt/.json and minimal cases under
# $out/regressions; prints the summary's head and failures; exits 4 when the GPU engine is unavailable and sets
# status=1 when the campaign found a disagreement.
run_campaign() {
  timeout $(( $3 + 60 )) "$tilesim" fuzz --engine gpu --profile "$2" --seconds "$3" --seed "$4" --jobs "$jobs" \
    --regressions "$out/regressions" --json "$out/fuzz-gpu-$1.json" --quiet >"$out/fuzz-gpu-$1.txt" 2>&1
  local rc=$?
  head -3 "$out/fuzz-gpu-$1.txt"
  grep -A2 "^  failures:" "$out/fuzz-gpu-$1.txt" | head -20
  echo "fuzz-gpu-$1: exit $rc"
  if [ "$rc" -eq 4 ]; then cat "$out/fuzz-gpu-$1.txt"; exit 4; fi
  if [ "$rc" -ne 0 ]; then status=1; fi
}
