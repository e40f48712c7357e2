// splitAt: a string cut at every occurrence of one separator character, for the small text formats above ir/
// that are lists (inline asm constraints "=r,r,l", PTX opcode words "cvt.rn.f16x2.f32").
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tilesim {

// Every piece between separators, empty ones included: "a,,b" -> {"a", "", "b"}; "" -> {""}.
inline std::vector<std::string> splitAt(std::string_view text, char separator) {
  std::vector<std::string> pieces;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == separator) {
      pieces.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  return pieces;
}

}  // namespace tilesim
