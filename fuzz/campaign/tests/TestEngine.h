// The base of the campaign tests' test-only engines (CampaignTest.cpp, ReplayTest.cpp): each is the interpreter
// with one thing changed (a planted bug, another reduce order), and says so by its name and description.
#pragma once

#include <string>
#include <utility>

#include "interpreter/Interpreter.h"
#include "ir/launch/Engine.h"

namespace tilesim::fuzz {

class InterpreterVariantEngine : public Engine {
 public:
  InterpreterVariantEngine(const char* name, std::string description)
      : name_(name), description_(std::move(description)) {}
  const char* name() const override { return name_; }
  std::string description() const override { return description_; }

 protected:
  InterpreterEngine interpreter_;  // what the variant changes the outcome of

 private:
  const char* name_;
  std::string description_;
};

}  // namespace tilesim::fuzz
