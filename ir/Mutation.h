// Mutant schemata for measuring the fuzzer (docs/fuzzing.md, "Mutation score"): TILESIM_MUTANT(id, original,
// mutated) marks one small, deliberate bug at the place it would live. In a normal build the macro is exactly
// `(original)`: the mutated expression is not compiled, so the code, its PTX and its speed are unchanged. In a
// build with -DTILESIM_MUTATION_TESTING=ON it is `(mutant id is active ? (mutated) : (original))`, where the one
// active mutant is named by the environment variable TILESIM_MUTANT (none when unset). Every id is a row of
// fuzz/mutants/Mutants.def, so a site with an unknown id does not compile in a mutation build, and an unknown
// TILESIM_MUTANT stops the process with exit status 2 before it runs anything.
// Include this header only in files that hold a mutant.
#pragma once

namespace tilesim::mutation {

// Whether this build was configured with TILESIM_MUTATION_TESTING=ON.
bool isMutationBuild();

// Checks TILESIM_MUTANT at a tool's startup: in a mutation build an unknown id prints the known ones and exits 2;
// in a normal build any non-empty value is an error too (exit 2: a score measured on a build without mutants
// would count every mutant as survived), so the variable never silently does nothing.
void checkMutantEnvironment();

#if TILESIM_MUTATION_TESTING
enum class MutantId : int {
  None = 0,
#define TILESIM_MUTANT_ENTRY(id, engine, category, file, description) id,
#include "fuzz/mutants/Mutants.def"
#undef TILESIM_MUTANT_ENTRY
};

MutantId readActiveMutant();  // TILESIM_MUTANT, validated (exit 2 on an unknown id)
inline MutantId activeMutant() {
  static const MutantId active = readActiveMutant();
  return active;
}
#endif

}  // namespace tilesim::mutation

#if TILESIM_MUTATION_TESTING
#define TILESIM_MUTANT(id, original, mutated)                                                                    \
  (::tilesim::mutation::activeMutant() == ::tilesim::mutation::MutantId::id ? (mutated) : (original))
#else
#define TILESIM_MUTANT(id, original, mutated) (original)
#endif
