# SPDX-License-Identifier: Apache-2.0
# Writes a C++ file holding every rtl/*.sv file's text, so that oasis-gen can
# copy the hand-written primitives into its output without looking for them.
set(body "// Generated at build time from rtl/*.sv. Do not edit.\n#include \"gen/embedded_rtl.hpp\"\n\nnamespace oasis::gen {\n\nconst std::vector<EmbeddedFile>& embedded_rtl() {\n  static const std::vector<EmbeddedFile> files = {\n")
list(SORT FILES)
foreach(f ${FILES})
  get_filename_component(name ${f} NAME)
  file(READ ${f} text)
  string(APPEND body "      {\"${name}\", R\"OASIS_RTL(${text})OASIS_RTL\"},\n")
endforeach()
string(APPEND body "  };\n  return files;\n}\n\n}  // namespace oasis::gen\n")
file(WRITE ${OUT}.tmp "${body}")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
