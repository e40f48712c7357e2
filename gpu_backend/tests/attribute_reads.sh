#!/usr/bin/env bash
# Fails when gpu_backend/ reads an op attribute by its name (`op.attr("axis")`, `intAttr`, `keywordAttr`,
# `hasAttr`) instead of through a typed view of ir/OpAttributes.h, printing the offending lines: the views
# are where an attribute's spelling, default and encoding are defined once for every engine.
root=${1:?usage: attribute_reads.sh SOURCE_ROOT}
if grep -rnE '(\.|->)(attr|intAttr|keywordAttr|hasAttr)\("' --include='*.cpp' --include='*.h' --exclude-dir=tests \
     "$root/gpu_backend"; then
  echo "gpu_backend reads attributes by name (above): add or use a view in ir/OpAttributes.h" >&2
  exit 1
fi
echo "gpu_backend reads attributes only through ir/OpAttributes.h's views"
