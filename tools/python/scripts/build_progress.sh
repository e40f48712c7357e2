#!/bin/sh
# The compiler launcher of the pip build (the top-level CMakeLists.txt sets it when scikit-build-core builds,
# SKBUILD): pip shows a build backend's output only with `pip install -v`, and otherwise a spinner ("still
# running..." where there is no terminal). So each compile also writes one line to the user's terminal, when
# there is one (/dev/tty; none in CI, where this prints nothing):
#     tilesim build: [12/55] interpreter/Dot.cpp (41 s)
# then runs the compile. Usage: build_progress.sh STATE_DIR SOURCE_ROOT COMPILER ARGS... ; STATE_DIR/total holds
# the number of compiles (tools/python/CMakeLists.txt writes it); STATE_DIR/done counts them under a lock.
# TILESIM_BUILD_PROGRESS=0 turns it off.
state="$1"
root="$2"
shift 2
if [ "${TILESIM_BUILD_PROGRESS:-1}" != "0" ] && (: > /dev/tty) 2>/dev/null; then
  source=""
  previous=""
  for argument in "$@"; do
    [ "$previous" = "-c" ] && source="$argument"
    previous="$argument"
  done
  mkdir -p "$state" 2>/dev/null
  count=$( (flock 9 2>/dev/null; n=$(( $(cat "$state/done" 2>/dev/null || echo 0) + 1 )); echo "$n" > "$state/done"
           echo "$n") 9>"$state/lock")
  [ -f "$state/start" ] || date +%s > "$state/start"
  elapsed=$(( $(date +%s) - $(cat "$state/start") ))
  total=$(cat "$state/total" 2>/dev/null || echo "?")
  # Leading newline: pip's spinner sits at the end of the current line; trailing space: the spinner's next
  # character lands there instead of over the file name.
  printf '\n    tilesim build: [%s/%s] %s (%s s) ' "$count" "$total" "${source#"$root"/}" \
    "$elapsed" > /dev/tty 2>/dev/null
fi
exec "$@"
