# Writes OUT (a .cpp defining tilesim::cli::kBuildVersion) from `git describe` of SOURCE_DIR, at build time, so
# `tilesim --version` names the commit it was built from: benchmark results carry it (bench/gpu/run_h200.sh).
# Outside a git checkout (an sdist, a tarball) the commit is "unknown". configure_file leaves OUT untouched when
# the text is the same, so an unchanged commit rebuilds nothing.
execute_process(COMMAND git -C "${SOURCE_DIR}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE TILESIM_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR TILESIM_COMMIT STREQUAL "")
  set(TILESIM_COMMIT "unknown")
endif()
configure_file("${TEMPLATE}" "${OUT}" @ONLY)
