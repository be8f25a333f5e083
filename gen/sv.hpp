// Small pieces of SystemVerilog emission shared by the blocks: a module
// header with its documented ports, and an instance with named connections.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace oasis::gen {

/// One port of a module: direction "input" or "output", width in bits (0: a
/// one-bit scalar, 1 or more: a vector [width-1:0]), name, and the `///`
/// comment that documents it.
struct Port {
  std::string dir;
  int width;
  std::string name;
  std::string doc;
};

/// `/// doc` lines, `module name (`, the ports with their comments, `);`.
/// `doc` may hold several lines.
std::string module_header(const std::string& module, const std::string& doc,
                          const std::vector<Port>& ports);

/// `module inst (.port(signal), ...);` with the ports aligned.
std::string instance(const std::string& module, const std::string& inst,
                     const std::vector<std::pair<std::string, std::string>>& connections,
                     const std::string& indent = "  ");

}  // namespace oasis::gen
