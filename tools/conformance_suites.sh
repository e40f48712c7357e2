#!/usr/bin/env bash
# The case folders of conformance/suites.txt, for the scripts that walk them (sourced), or printed (run):
#   suite_case_dirs TAG [ROOT [OWN_CASES]]   every case directory of the suites tagged TAG, in the file's order,
#                                            each as ROOT/FOLDER/CASE/ (ROOT empty: FOLDER/CASE/, relative to the
#                                            repository root); OWN_CASES stands in for gpu_backend/tests/cases
#                                            (device_payload.sh's copy of them on the GPU machine)
#   suite_folders TAG [ROOT]                 the suites' folders themselves
#   bash tools/conformance_suites.sh TAG     prints suite_case_dirs TAG from the repository root (a dry run)
# A folder is expanded as bash expands FOLDER/*/ (or FOLDER/*/*/), so the order and the strings are those of the
# globs the scripts wrote out before the list moved into the data file.
suites_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/conformance/suites.txt

# FOLDER DEPTH of each suite tagged $1.
suite_lines() {
  local folder depth tags
  while read -r folder depth tags; do
    [[ -z $folder || $folder == \#* ]] && continue
    tags=${tags%%#*} tags=${tags//[[:space:]]/}
    [[ ,$tags, == *,$1,* ]] && echo "$folder $depth"
  done <"$suites_file"
}

suite_folders() {
  local folder depth prefix=${2:+$2/}
  while read -r folder depth; do echo "$prefix$folder"; done < <(suite_lines "$1")
}

suite_case_dirs() {
  local folder depth base dir prefix=${2:+$2/} own=${3:-}
  while read -r folder depth; do
    base=$prefix$folder
    [[ -n $own && $folder == gpu_backend/tests/cases ]] && base=$own
    if [ "$depth" = 2 ]; then
      for dir in "$base"/*/*/; do echo "$dir"; done
    else
      for dir in "$base"/*/; do echo "$dir"; done
    fi
  done < <(suite_lines "$1")
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  cd "$(dirname "$0")/.." || exit 1
  [ $# -eq 1 ] || { echo "usage: bash tools/conformance_suites.sh TAG (gpu, triton-core, triton)" >&2; exit 2; }
  suite_case_dirs "$1"
fi
