// The oracle's integer ops (OracleScalar.h), from docs/semantics.md "Integers": each lane is read as its exact
// signed and unsigned value in 128 bits, the op is computed exactly, and the result is reduced modulo 2^width.
// So wrap-around, MIN / -1 = MIN and MIN % -1 = 0 fall out of the arithmetic instead of being special cases, and
// i1 (width 1: true is -1 signed, 1 unsigned) needs no widening trick. The written-out cases are the ones the
// docs define apart from arithmetic: division by zero (all ones) and shift amounts >= the width.
#include "fuzz/programs/OracleScalar.h"

namespace tilesim::fuzz::oracle {
namespace {

using Wide = __int128;
using UnsignedWide = unsigned __int128;

struct IntegerLane {
  Wide asSigned;
  UnsignedWide asUnsigned;
};

IntegerLane readLane(int width, uint64_t bits) {
  const UnsignedWide modulus = static_cast<UnsignedWide>(1) << width;
  const UnsignedWide value = static_cast<UnsignedWide>(bits) & (modulus - 1);
  const bool negative = (value >> (width - 1)) & 1;
  return {negative ? static_cast<Wide>(value) - static_cast<Wide>(modulus) : static_cast<Wide>(value), value};
}

// The exact value `value` modulo 2^width, as the lane's bits.
uint64_t reduce(int width, Wide value) {
  const UnsignedWide modulus = static_cast<UnsignedWide>(1) << width;
  return static_cast<uint64_t>(static_cast<UnsignedWide>(value) & (modulus - 1));
}

uint64_t allOnes(int width) { return reduce(width, -1); }

}  // namespace

uint64_t integerArith(IntArithOp op, int width, uint64_t a, uint64_t b) {
  const IntegerLane x = readLane(width, a), y = readLane(width, b);
  const bool amountTooLarge = y.asUnsigned >= static_cast<UnsignedWide>(width);
  switch (op) {
    case IntArithOp::ArithAddI: return reduce(width, x.asSigned + y.asSigned);
    case IntArithOp::ArithSubI: return reduce(width, x.asSigned - y.asSigned);
    case IntArithOp::ArithMulI: return reduce(width, x.asSigned * y.asSigned);
    case IntArithOp::ArithDivSI: return y.asSigned == 0 ? allOnes(width) : reduce(width, x.asSigned / y.asSigned);
    case IntArithOp::ArithCeilDivSI: {
      if (y.asSigned == 0) return allOnes(width);
      const Wide quotient = x.asSigned / y.asSigned;
      const bool roundUp = x.asSigned % y.asSigned != 0 && (x.asSigned < 0) == (y.asSigned < 0);
      return reduce(width, roundUp ? quotient + 1 : quotient);
    }
    case IntArithOp::ArithDivUI:
      return y.asUnsigned == 0 ? allOnes(width) : reduce(width, static_cast<Wide>(x.asUnsigned / y.asUnsigned));
    case IntArithOp::ArithRemSI: return y.asSigned == 0 ? allOnes(width) : reduce(width, x.asSigned % y.asSigned);
    case IntArithOp::ArithRemUI:
      return y.asUnsigned == 0 ? allOnes(width) : reduce(width, static_cast<Wide>(x.asUnsigned % y.asUnsigned));
    case IntArithOp::ArithAndI: return reduce(width, static_cast<Wide>(x.asUnsigned & y.asUnsigned));
    case IntArithOp::ArithOrI: return reduce(width, static_cast<Wide>(x.asUnsigned | y.asUnsigned));
    case IntArithOp::ArithXOrI: return reduce(width, static_cast<Wide>(x.asUnsigned ^ y.asUnsigned));
    case IntArithOp::ArithShLI:
      return amountTooLarge ? 0 : reduce(width, static_cast<Wide>(x.asUnsigned << static_cast<int>(y.asUnsigned)));
    case IntArithOp::ArithShRUI:
      return amountTooLarge ? 0 : reduce(width, static_cast<Wide>(x.asUnsigned >> static_cast<int>(y.asUnsigned)));
    case IntArithOp::ArithShRSI: {
      // Shifting right by the width or more leaves only the sign: 0 or -1.
      if (amountTooLarge) return reduce(width, x.asSigned < 0 ? -1 : 0);
      // Floor division by 2^amount is the arithmetic shift (exact in 128 bits; no reliance on >> of negatives).
      const Wide divisor = static_cast<Wide>(1) << static_cast<int>(y.asUnsigned);
      Wide quotient = x.asSigned / divisor;
      if (x.asSigned % divisor != 0 && x.asSigned < 0) --quotient;
      return reduce(width, quotient);
    }
    case IntArithOp::ArithMaxSI: return reduce(width, x.asSigned < y.asSigned ? y.asSigned : x.asSigned);
    case IntArithOp::ArithMinSI: return reduce(width, x.asSigned < y.asSigned ? x.asSigned : y.asSigned);
    case IntArithOp::ArithMaxUI:
      return reduce(width, static_cast<Wide>(x.asUnsigned < y.asUnsigned ? y.asUnsigned : x.asUnsigned));
    case IntArithOp::ArithMinUI:
      return reduce(width, static_cast<Wide>(x.asUnsigned < y.asUnsigned ? x.asUnsigned : y.asUnsigned));
    case IntArithOp::TTMulhiUI: return reduce(width, static_cast<Wide>((x.asUnsigned * y.asUnsigned) >> width));
    case IntArithOp::MathAbsI: return reduce(width, x.asSigned < 0 ? -x.asSigned : x.asSigned);
  }
  return 0;
}

bool integerCompare(IntPredicate predicate, int width, uint64_t a, uint64_t b) {
  const IntegerLane x = readLane(width, a), y = readLane(width, b);
  switch (predicate) {
    case IntPredicate::Eq: return x.asUnsigned == y.asUnsigned;
    case IntPredicate::Ne: return x.asUnsigned != y.asUnsigned;
    case IntPredicate::Slt: return x.asSigned < y.asSigned;
    case IntPredicate::Sle: return x.asSigned <= y.asSigned;
    case IntPredicate::Sgt: return x.asSigned > y.asSigned;
    case IntPredicate::Sge: return x.asSigned >= y.asSigned;
    case IntPredicate::Ult: return x.asUnsigned < y.asUnsigned;
    case IntPredicate::Ule: return x.asUnsigned <= y.asUnsigned;
    case IntPredicate::Ugt: return x.asUnsigned > y.asUnsigned;
    case IntPredicate::Uge: return x.asUnsigned >= y.asUnsigned;
  }
  return false;
}

bool signedOverflow(IntArithOp op, int width, uint64_t a, uint64_t b) {
  const IntegerLane x = readLane(width, a), y = readLane(width, b);
  Wide exact = 0;
  switch (op) {
    case IntArithOp::ArithAddI: exact = x.asSigned + y.asSigned; break;
    case IntArithOp::ArithSubI: exact = x.asSigned - y.asSigned; break;
    case IntArithOp::ArithMulI: exact = x.asSigned * y.asSigned; break;
    case IntArithOp::ArithDivSI:
    case IntArithOp::ArithCeilDivSI:
    case IntArithOp::ArithDivUI:
    case IntArithOp::ArithRemSI:
    case IntArithOp::ArithRemUI:
    case IntArithOp::ArithAndI:
    case IntArithOp::ArithOrI:
    case IntArithOp::ArithXOrI:
    case IntArithOp::ArithShLI:
    case IntArithOp::ArithShRSI:
    case IntArithOp::ArithShRUI:
    case IntArithOp::ArithMaxSI:
    case IntArithOp::ArithMinSI:
    case IntArithOp::ArithMaxUI:
    case IntArithOp::ArithMinUI:
    case IntArithOp::TTMulhiUI:
    case IntArithOp::MathAbsI: return false;
  }
  const Wide limit = static_cast<Wide>(1) << (width - 1);
  return exact < -limit || exact >= limit;
}

}  // namespace tilesim::fuzz::oracle
