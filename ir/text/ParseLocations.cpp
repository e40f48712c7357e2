// Locations in TTIR text: `loc(...)` after ops, block arguments, functions and the module, in every form MLIR
// prints (file:line:col, names with an optional child, callsite, fused, unknown, #alias), and the `#locN = loc(...)`
// alias definitions, which may come after their uses (Triton prints most of them after the module). A use of an
// alias before its definition gets a placeholder slot that the definition fills in.
#include <charconv>

#include "ir/text/ParserImpl.h"

namespace tilesim::text {

LocId ParserImpl::aliasReference(std::string_view name, size_t offset) {
  auto it = aliases_.find(std::string(name));
  if (it != aliases_.end()) return it->second.id;
  AliasSlot slot;
  slot.id = module_->locations.add(Location{});
  slot.firstUse = offset;
  aliases_.emplace(std::string(name), slot);
  return slot.id;
}

LocId ParserImpl::parseOptionalLocation() {
  if (!atKeyword("loc") || !peekNext().is(TokenKind::LParen)) return kNoLoc;
  advance();
  advance();
  LocId id = parseLocationBody();
  expect(TokenKind::RParen, "to close loc(...)");
  return id;
}

LocId ParserImpl::parseLocationBody() {
  if (at(TokenKind::HashId)) {
    LocId id = aliasReference(token_.text.substr(1), token_.offset);
    advance();
    return id;
  }
  Location location = parseLocationStruct();
  return module_->locations.add(std::move(location));
}

Location ParserImpl::parseLocationStruct() {
  DepthGuard guard(*this);
  Location location;
  if (consumeKeywordIf("unknown")) return location;
  if (at(TokenKind::String)) {
    location.text = parseStringLiteral();
    if (consumeIf(TokenKind::Colon)) {
      Token line = expect(TokenKind::Integer, "(line number)");
      expect(TokenKind::Colon, "after the line number");
      Token column = expect(TokenKind::Integer, "(column number)");
      location.kind = Location::Kind::FileLineCol;
      auto parseInt = [&](const Token& t) {
        int value = 0;
        auto [ptr, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), value);
        if (ec != std::errc() || ptr != t.text.data() + t.text.size()) failAt(t.offset, "bad line or column number");
        return value;
      };
      location.line = parseInt(line);
      location.column = parseInt(column);
      if (atKeyword("to")) fail("location ranges are not supported");
      return location;
    }
    location.kind = Location::Kind::Name;
    if (consumeIf(TokenKind::LParen)) {
      location.children.push_back(parseLocationBody());
      expect(TokenKind::RParen, "to close the name location");
    }
    return location;
  }
  if (consumeKeywordIf("callsite")) {
    location.kind = Location::Kind::CallSite;
    expect(TokenKind::LParen, "after 'callsite'");
    location.children.push_back(parseLocationBody());
    expectKeyword("at", "in callsite location");
    location.children.push_back(parseLocationBody());
    expect(TokenKind::RParen, "to close callsite(...)");
    return location;
  }
  if (consumeKeywordIf("fused")) {
    location.kind = Location::Kind::Fused;
    if (at(TokenKind::Less)) fail("fused locations with metadata are not supported");
    expect(TokenKind::LSquare, "after 'fused'");
    if (!consumeIf(TokenKind::RSquare)) {
      do location.children.push_back(parseLocationBody());
      while (consumeIf(TokenKind::Comma));
      expect(TokenKind::RSquare, "to close fused[...]");
    }
    return location;
  }
  fail("expected a location (a string, 'unknown', 'callsite', 'fused' or a #alias)");
}

void ParserImpl::parseAliasDefinition(bool beforeModule) {
  Token nameToken = token_;
  std::string name(token_.text.substr(1));
  advance();
  expect(TokenKind::Equal, "after the alias name");
  if (at(TokenKind::HashId)) return parseEncodingAliasDefinition(name, nameToken.offset, beforeModule);
  if (!atKeyword("loc")) fail("expected loc(...) or an encoding (#ttg....) after '#" + name + " ='");
  if (encodingAliases_.count(name)) failAt(nameToken.offset, "redefinition of alias #" + name);
  advance();
  expect(TokenKind::LParen, "after 'loc'");
  Location location;
  if (at(TokenKind::HashId)) {
    std::string target(token_.text.substr(1));
    auto it = aliases_.find(target);
    if (it == aliases_.end() || !it->second.defined) fail("location alias #" + name + " refers to #" + target + " before it is defined");
    location = module_->locations.at(it->second.id);
    advance();
  } else {
    location = parseLocationStruct();
  }
  expect(TokenKind::RParen, "to close loc(...)");
  auto it = aliases_.find(name);
  LocId id;
  if (it == aliases_.end()) {
    id = module_->locations.add(std::move(location));
    AliasSlot slot;
    slot.id = id;
    slot.defined = true;
    aliases_.emplace(name, slot);
  } else {
    if (it->second.defined) failAt(nameToken.offset, "redefinition of location alias #" + name);
    it->second.defined = true;
    id = it->second.id;
    module_->locations.at(id) = std::move(location);
  }
  module_->locations.aliases().push_back(LocationAlias{name, id, beforeModule});
}

}  // namespace tilesim::text
