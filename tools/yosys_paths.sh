# Paths in Yosys commands, for the scripts that write them (sourced, not run).
# Yosys 0.23 splits a command at spaces, but its file readers and writers
# (read_verilog, read_liberty, write_verilog, write_json, ...) take a path in
# double quotes whole; a path holding a double quote or a newline has no
# such form. Commands that are not readers or writers (tee -o, for one) keep
# the quotes as part of the name: give them a relative path without spaces
# from the folder Yosys runs in. docs/paths.md has the details.

# yosys_word PATH: PATH as one word of a Yosys command.
yosys_word() {
  case "$1" in
    *'"'* | *$'\n'*)
      echo "yosys: the path '$1' holds a double quote or a newline, which Yosys cannot read" >&2
      return 2 ;;
  esac
  printf '"%s"' "$1"
}

# yosys_sources DIR BLOCK: the sources of DIR/BLOCK.f (a generated file list,
# relative to DIR), as words of a Yosys command, on one line.
yosys_sources() {
  local dir=$1 line word words=() IFS=' '
  while IFS= read -r line; do
    case "$line" in '//'* | '') continue ;; esac
    word=$(yosys_word "$dir/$line") || return 2
    words+=("$word")
  done <"$dir/$2.f"
  [ ${#words[@]} -gt 0 ] || { echo "yosys: no sources in $dir/$2.f" >&2; return 1; }
  echo "${words[*]}"
}
