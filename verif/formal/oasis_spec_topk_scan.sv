// SPDX-License-Identifier: Apache-2.0
`default_nettype none

/// The specification of one Orizuru pop (docs/spec.md section 5): a linear scan over the available
/// entries from channel 0 up. The max side replaces its candidate only by a strictly
/// greater key, so among equal keys the lowest channel wins; the min side replaces it by a
/// less or equal key, so the highest channel wins: the top and the bottom of one strict
/// order (key, then lower channel first).
module oasis_spec_topk_scan #(
  /// Entries N.
  parameter int Channels = 8,
  /// Width of the returned channel.
  parameter int ChanBits = 3,
  /// 0: the max side, 1: the min side.
  parameter bit MinSide = 1'b0,
  /// 1: break ties the wrong way (the min side to the lower channel, the max side to
  /// the higher), for the check that the lemmas can fail.
  parameter bit Broken = 1'b0
) (
  /// Entry j's order key at [j*17 +: 17] (oasis_spec_order_key).
  input  logic [Channels*17-1:0] key_i,
  /// Entry j takes part when bit j is set.
  input  logic [Channels-1:0]    avail_i,
  /// The chosen channel (meaningful when some entry is available).
  output logic [ChanBits-1:0]    chan_o
);

  always_comb begin
    logic [16:0] best;
    logic have, take;
    chan_o = '0;
    best   = '0;
    have   = 1'b0;
    for (int j = 0; j < Channels; j++) begin
      if (MinSide) begin
        take = Broken ? key_i[j*17 +: 17] < best : key_i[j*17 +: 17] <= best;
      end else begin
        take = Broken ? key_i[j*17 +: 17] >= best : key_i[j*17 +: 17] > best;
      end
      if (avail_i[j] && (!have || take)) begin
        chan_o = ChanBits'(j);
        best   = key_i[j*17 +: 17];
        have   = 1'b1;
      end
    end
  end

endmodule

`default_nettype wire
