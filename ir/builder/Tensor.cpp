// Printing helpers for the builder's value types (error messages quote literals the way Python prints them).
#include "ir/builder/Tensor.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tilesim::builder {

const char* frontendErrorKindName(FrontendError::Kind kind) {
  switch (kind) {
    case FrontendError::Kind::TypeError: return "TypeError";
    case FrontendError::Kind::ValueError: return "ValueError";
    case FrontendError::Kind::IncompatibleTypeError: return "IncompatibleTypeError";
    case FrontendError::Kind::AssertionError: return "AssertionError";
    case FrontendError::Kind::UnsupportedLanguageConstruct: return "UnsupportedLanguageConstruct";
  }
  return "?";
}

std::string FrontendError::str() const { return std::string(frontendErrorKindName(kind)) + ": " + message; }

int64_t Tensor::numel() const {
  int64_t count = 1;
  for (int64_t size : shape) count *= size;
  return count;
}

static std::string bigIntString(BigInt value) {
  if (value == 0) return "0";
  bool negative = value < 0;
  unsigned __int128 magnitude = negative ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
  std::string digits;
  while (magnitude > 0) {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  }
  return negative ? "-" + digits : digits;
}

std::string Literal::str() const {
  switch (kind) {
    case Kind::Bool: return intValue ? "True" : "False";
    case Kind::Int: return bigIntString(intValue);
    case Kind::Float: {
      if (std::isnan(floatValue)) return "nan";
      if (std::isinf(floatValue)) return floatValue > 0 ? "inf" : "-inf";
      // Python's repr: the shortest string that round-trips.
      char buffer[64];
      for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, floatValue);
        if (std::strtod(buffer, nullptr) == floatValue) break;
      }
      std::string text = buffer;
      if (text.find_first_of(".en") == std::string::npos) text += ".0";
      return text;
    }
  }
  return "?";
}

}  // namespace tilesim::builder
