// The active mutant's id as text, for what caches generated code (ir/Mutation.h has the mutant schemata). Its own
// header so that a cache can key on it without including Mutation.h, which the mutated hot headers include.
#pragma once

namespace tilesim::mutation {

// The active mutant's id ("" when none, and always in a normal build). A kernel compiled with a mutant active is
// another kernel: GpuEngine's in-memory and on-disk kernel caches key on this.
const char* activeMutantName();

}  // namespace tilesim::mutation
