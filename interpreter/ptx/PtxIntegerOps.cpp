// The PTX subset's handlers for integer, bit and predicate types (interpreter/ptx/PtxOpcodes.h): §9.7.1 integer
// arithmetic and comparison, §9.7.7 logic and shift, §9.7.9.7 prmt, §9.7.9.10 mov, selp. Integer arithmetic wraps
// at the operation's width; `.s` types sign-extend their sources, others zero-extend.
#include <algorithm>

#include "interpreter/ptx/PtxOpcodes.h"

namespace tilesim::ptx {

namespace {

bool isSigned(const PtxStep& step) { return step.type.cls == Class::Signed; }

// A source widened as the type says: sign-extended for `.s` types, else the low `width` bits.
uint64_t widened(const PtxStep& step, uint64_t bits) {
  return isSigned(step) ? static_cast<uint64_t>(signExtend(bits, step.width)) : bits & mask(step.width);
}

// Whether a < b as the type orders them.
bool less(const PtxStep& step) {
  return isSigned(step) ? signExtend(step.a, step.width) < signExtend(step.b, step.width)
                        : (step.a & mask(step.width)) < (step.b & mask(step.width));
}

// mul / mad: the full product of the widened sources; `.hi` keeps its upper half, `.wide` doubles the width.
bool multiply(PtxStep& step, bool addend) {
  const int width = step.width;
  const bool hi = has(step.in, "hi"), wide = has(step.in, "wide");
  const __int128 x = isSigned(step) ? static_cast<__int128>(signExtend(step.a, width)) : static_cast<__int128>(step.a & mask(width));
  const __int128 y = isSigned(step) ? static_cast<__int128>(signExtend(step.b, width)) : static_cast<__int128>(step.b & mask(width));
  const unsigned __int128 product = static_cast<unsigned __int128>(x * y);
  uint64_t r = hi ? static_cast<uint64_t>(product >> width) : static_cast<uint64_t>(product);
  if (addend) r += wide ? step.c : widened(step, step.c);
  return step.result(r, wide ? 2 * width : width);
}

}  // namespace

bool integerAdd(PtxStep& step) { return step.result(widened(step, step.a) + widened(step, step.b)); }
bool integerSub(PtxStep& step) { return step.result(widened(step, step.a) - widened(step, step.b)); }
bool integerMul(PtxStep& step) { return multiply(step, false); }
bool integerMad(PtxStep& step) { return multiply(step, true); }
bool integerMin(PtxStep& step) { return step.result(less(step) ? step.a : step.b); }
bool integerMax(PtxStep& step) { return step.result(less(step) ? step.b : step.a); }
bool integerNeg(PtxStep& step) { return step.result(0 - widened(step, step.a)); }

// In two's complement the most negative value is its own absolute value.
bool integerAbs(PtxStep& step) {
  const int64_t x = signExtend(step.a, step.width);
  return step.result(x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x));
}

bool bitAnd(PtxStep& step) { return step.result(step.a & step.b); }
bool bitOr(PtxStep& step) { return step.result(step.a | step.b); }
bool bitXor(PtxStep& step) { return step.result(step.a ^ step.b); }
bool bitNot(PtxStep& step) { return step.result(~step.a); }

// Shift amounts are the low 32 bits of b; at or past the width, shl and shr.u give 0 and shr.s the sign.
bool shiftLeft(PtxStep& step) {
  const uint64_t amount = step.b & 0xFFFFFFFFu;
  return step.result(amount >= static_cast<uint64_t>(step.width) ? 0 : step.a << amount);
}

bool shiftRight(PtxStep& step) {
  const uint64_t amount = step.b & 0xFFFFFFFFu;
  const uint64_t width = static_cast<uint64_t>(step.width);
  if (isSigned(step))
    return step.result(static_cast<uint64_t>(signExtend(step.a, step.width) >> std::min<uint64_t>(amount, width - 1)));
  return step.result(amount >= width ? 0 : (step.a & mask(step.width)) >> amount);
}

// §9.7.7.6 lop3.b32 d, a, b, c, immLut: bit i of d = immLut[(a_i << 2) | (b_i << 1) | c_i].
bool lookup3(PtxStep& step) {
  const uint64_t lut = step.source(4);
  uint64_t r = 0;
  for (int bit = 0; bit < 32; ++bit) {
    const unsigned index =
        static_cast<unsigned>(((step.a >> bit) & 1) << 2 | ((step.b >> bit) & 1) << 1 | ((step.c >> bit) & 1));
    r |= ((lut >> index) & 1) << bit;
  }
  return step.result(r, 32);
}

// §9.7.9.7 prmt.b32 d, a, b, c, default mode: selector nibbles of c pick bytes of {b, a}; bit 3 replicates the sign.
bool permuteBytes(PtxStep& step) {
  if (step.in.modifiers.size() > 1) return step.unsupported("uses a prmt mode other than the default");
  const uint64_t bytes = (step.b & 0xFFFFFFFFu) << 32 | (step.a & 0xFFFFFFFFu);
  uint64_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned selector = static_cast<unsigned>((step.c >> (4 * i)) & 0xF);
    uint64_t byte = (bytes >> (8 * (selector & 7))) & 0xFF;
    if (selector & 8) byte = (byte & 0x80) ? 0xFF : 0x00;
    r |= byte << (8 * i);
  }
  return step.result(r, 32);
}

// §9.7.7.7 shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: funnel shift of {b:a} (b high) by c.
bool funnelShift(PtxStep& step) {
  const bool left = has(step.in, "l"), clamp = has(step.in, "clamp");
  uint64_t amount = step.c & 0xFFFFFFFFu;
  amount = clamp ? std::min<uint64_t>(amount, 32) : amount & 31;
  const uint64_t funnel = (step.b & 0xFFFFFFFFu) << 32 | (step.a & 0xFFFFFFFFu);
  return step.result(left ? (funnel << amount) >> 32 : funnel >> amount, 32);
}

// setp.CMP.TYPE p, a, b: eq ne lt le gt ge (signed for `.s` types), lo ls hi hs (always unsigned).
bool integerSetp(PtxStep& step) {
  const std::string& cmp = step.in.modifiers.empty() ? "" : step.in.modifiers[0];
  const int64_t sx = signExtend(step.a, step.width), sy = signExtend(step.b, step.width);
  const uint64_t ux = step.a & mask(step.width), uy = step.b & mask(step.width);
  const bool signedCompare = isSigned(step);
  bool r;
  if (cmp == "eq") r = ux == uy;
  else if (cmp == "ne") r = ux != uy;
  else if (cmp == "lt") r = signedCompare ? sx < sy : ux < uy;
  else if (cmp == "le") r = signedCompare ? sx <= sy : ux <= uy;
  else if (cmp == "gt") r = signedCompare ? sx > sy : ux > uy;
  else if (cmp == "ge") r = signedCompare ? sx >= sy : ux >= uy;
  else if (cmp == "lo") r = ux < uy;
  else if (cmp == "ls") r = ux <= uy;
  else if (cmp == "hi") r = ux > uy;
  else if (cmp == "hs") r = ux >= uy;
  else return step.unsupported("uses a comparison the subset does not know");
  return step.result(r ? 1 : 0, 1);
}

// selp.TYPE d, a, b, p: a where the predicate p is set, else b (any type).
bool select(PtxStep& step) { return step.result((step.c & 1) ? step.a : step.b); }

// §9.7.9.10 mov.TYPE d, a, including the pack `mov.b32 d, {lo, hi}` and unpack `mov.b32 {lo, hi}, a` forms (lowest
// element in the lowest bits); the vector's registers must split the width evenly.
bool move(PtxStep& step) {
  const std::vector<PtxOperand>& operands = step.in.operands;
  const size_t n = operands.size();
  const int width = step.width;
  auto isVector = [&](size_t i) { return i < n && operands[i].kind == PtxOperand::Kind::Vector; };
  for (size_t i = 0; i < n; ++i)
    if (isVector(i) && (width % static_cast<int>(operands[i].vector.size()) != 0 || (i == 0 && n > 1 && isVector(1))))
      return step.unsupported("packs a vector whose registers do not split the " + std::to_string(width) + "-bit width");
  if (isVector(1)) {  // pack
    const std::vector<int>& parts = operands[1].vector;
    const int part = width / static_cast<int>(parts.size());
    uint64_t bits = 0;
    for (size_t i = 0; i < parts.size(); ++i)
      bits |= (step.registers.read(parts[i]) & mask(part)) << (i * static_cast<size_t>(part));
    return step.result(bits);
  }
  if (isVector(0)) {  // unpack
    const std::vector<int>& parts = operands[0].vector;
    const int part = width / static_cast<int>(parts.size());
    for (size_t i = 0; i < parts.size(); ++i) step.registers.writeRegister(parts[i], step.a >> (i * static_cast<size_t>(part)), part);
    return true;
  }
  return step.result(step.a);
}

}  // namespace tilesim::ptx
