// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// Full adder: a_i + b_i + c_i = 2 * carry_o + sum_o. The cell the Index Counter array's
/// compressor trees are built from; a module of its own so that a standard-cell flow can map
/// every instance to the library's full-adder cell (FAX1 in osu018) by its name.
/// Combinational.
module oasis_fa (
  /// First bit added.
  input  logic a_i,
  /// Second bit added.
  input  logic b_i,
  /// Third bit added (in a ripple-carry adder, the carry in).
  input  logic c_i,
  /// Sum bit, the weight of the inputs.
  output logic sum_o,
  /// Carry bit, twice their weight.
  output logic carry_o
);

  assign sum_o   = a_i ^ b_i ^ c_i;
  assign carry_o = (a_i & b_i) | (c_i & (a_i ^ b_i));

endmodule

`default_nettype wire
