# Elementwise numerics (helper h4): whole-tile evaluation of every elementwise op; see interpreter/Elementwise.h.
list(APPEND TILESIM_INTERPRETER_SOURCES
  Elementwise.cpp
  ElementwiseBounds.cpp
  ElementwiseCast.cpp
  ElementwiseFloat.cpp
  ElementwiseInt.cpp
)
