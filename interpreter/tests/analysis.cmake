# AxisInfo (ir/analysis) checked against what the interpreter computes, on every conformance kernel.
tilesim_add_test(axis_info_cross_check conformance
  SOURCES AxisInfoCrossCheckTest.cpp
  LIBS tilesim_analysis tilesim_conformance tilesim_interpreter tilesim_ir_text tilesim_ir_verify)
