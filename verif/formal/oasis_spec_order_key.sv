// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// The order key of docs/spec.md section 2 as an unsigned number, written independently of the
/// generated comparator: keys compare as unsigned integers exactly as the values compare
/// under the order key. -0 becomes +0; a non-negative value v maps to {1, v[14:0]}, a
/// negative one to {0, ~v[14:0]} (the bit patterns of non-negative binary16 values are in
/// magnitude order, and inverting them reverses it); every NaN, of any sign or payload,
/// maps to the largest key, above +Inf. Formal specification only (verif/formal), never
/// part of the design.
module oasis_spec_order_key (
  /// The value, IEEE 754 binary16.
  input  logic [15:0] x_i,
  /// Its key, 17 bits.
  output logic [16:0] key_o
);

  logic nan, zero;
  assign nan  = (x_i[14:10] == 5'h1f) && (x_i[9:0] != 10'd0);
  assign zero = x_i[14:0] == 15'd0;

  always_comb begin
    if (nan) begin
      key_o = 17'h10000;
    end else if (x_i[15] && !zero) begin
      key_o = {2'b00, ~x_i[14:0]};
    end else begin
      key_o = {2'b01, x_i[14:0]};
    end
  end

endmodule

`default_nettype wire
