// The active mutant of a mutation build (ir/Mutation.h): TILESIM_MUTANT read once and checked against the
// registry fuzz/mutants/Mutants.def; in a normal build only the startup check that the variable is unset.
#include "ir/Mutation.h"
#include "ir/MutantTag.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace tilesim::mutation {
namespace {

const char* environmentValue() {
  const char* value = std::getenv("TILESIM_MUTANT");
  return value && *value ? value : nullptr;
}

}  // namespace

#if TILESIM_MUTATION_TESTING

bool isMutationBuild() { return true; }

MutantId readActiveMutant() {
  const char* value = environmentValue();
  if (!value) return MutantId::None;
  struct Entry {
    std::string_view name;
    MutantId id;
  };
  static constexpr Entry kEntries[] = {
#define TILESIM_MUTANT_ENTRY(id, engine, category, file, description) {#id, MutantId::id},
#include "fuzz/mutants/Mutants.def"
#undef TILESIM_MUTANT_ENTRY
  };
  for (const Entry& entry : kEntries)
    if (entry.name == value) return entry.id;
  std::fprintf(stderr, "tilesim: error: TILESIM_MUTANT=%s names no mutant; the known ids (fuzz/mutants/Mutants.def):\n", value);
  for (const Entry& entry : kEntries) std::fprintf(stderr, "  %.*s\n", static_cast<int>(entry.name.size()), entry.name.data());
  std::exit(2);
}

void checkMutantEnvironment() { (void)activeMutant(); }

const char* activeMutantName() {
  if (activeMutant() == MutantId::None) return "";
  const char* value = environmentValue();  // readActiveMutant checked that it names a mutant
  return value ? value : "";
}

#else

bool isMutationBuild() { return false; }

const char* activeMutantName() { return ""; }

void checkMutantEnvironment() {
  if (const char* value = environmentValue()) {
    std::fprintf(stderr,
                 "tilesim: error: TILESIM_MUTANT=%s is set, but this build has no mutants "
                 "(configure with -DTILESIM_MUTATION_TESTING=ON)\n",
                 value);
    std::exit(2);
  }
}

#endif

}  // namespace tilesim::mutation
