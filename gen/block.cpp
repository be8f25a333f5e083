#include "gen/block.hpp"

#include <algorithm>
#include <map>

namespace oasis::gen {
namespace {

std::map<std::string, std::unique_ptr<Block>>& registry() {
  static std::map<std::string, std::unique_ptr<Block>> blocks;
  return blocks;
}

}  // namespace

Registrar::Registrar(std::unique_ptr<Block> block) {
  const std::string name = block->name();
  registry()[name] = std::move(block);
}

std::vector<const Block*> registered_blocks() {
  std::vector<const Block*> out;
  for (const auto& [name, block] : registry()) out.push_back(block.get());
  return out;
}

const Block* find_block(const std::string& name) {
  const auto it = registry().find(name);
  return it == registry().end() ? nullptr : it->second.get();
}

std::string module_name(const Config& config, const std::string& block) {
  return "oasis_" + config.name + "_" + block;
}

}  // namespace oasis::gen
