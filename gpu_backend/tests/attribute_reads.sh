#!/usr/bin/env bash
# Fails when an engine (interpreter/, gpu_backend/) or the fuzz reference (fuzz/) reads an op attribute by its
# name (`op.attr("axis")`, `intAttr`, `keywordAttr`, `hasAttr`) instead of through a typed view of
# ir/OpAttributes.h, printing the offending lines: the views are where an attribute's spelling, default and
# encoding are defined once for every engine.
root=${1:?usage: attribute_reads.sh SOURCE_ROOT}
if grep -rnE '(\.|->)(attr|intAttr|keywordAttr|hasAttr)\("' --include='*.cpp' --include='*.h' --exclude-dir=tests \
     "$root/interpreter" "$root/gpu_backend" "$root/fuzz"; then
  echo "an engine or the fuzz reference reads attributes by name (above): add or use a view in ir/OpAttributes.h" >&2
  exit 1
fi
echo "interpreter/, gpu_backend/ and fuzz/ read attributes only through ir/OpAttributes.h's views"
