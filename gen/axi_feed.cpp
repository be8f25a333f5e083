// SPDX-License-Identifier: Apache-2.0
// The system wrapper's feed of the core (_axi_feed) from the read buffer, and the unpacking
// of bus beats into the core's beats (_axi_unpack).
#include <fmt/format.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "gen/axi_modules.hpp"
#include "gen/block.hpp"
#include "gen/sv.hpp"
#include "model/cycle/regfile.hpp"
#include "model/derived.hpp"

namespace oasis::gen::axi_detail {

using std::string;

// ------------------------------------------------------------------------------ unpack

SvFile unpack_module(const Config& c) {
  SvModule m(module_name(c, "axi_unpack"),
             "The core's beats of BeatBits from the read buffer's bus beats of BusBits: with "
             "Parts > 1 a beat is Parts bus beats (part p at [p*BusBits +: BusBits]), the first "
             "Parts - 1 held and the last presented as it is at the buffer's head; with "
             "Slots > 1 a bus beat holds Slots beats (slot s at [s*BeatBits +: BeatBits]) and "
             "is taken from the buffer after its last slot or after the record's last beat "
             "(last_i); else a beat is the bus beat's low BeatBits. out_valid_o depends on "
             "registers only: the buffer's head and its own count.");
  m.param("BusBits", 64, "Bits of a bus beat.");
  m.param("BeatBits", 64, "Bits of a beat of the core's stream.");
  m.param("Parts", 1, "Bus beats a core beat (1 unless the core beat is wider than the bus).");
  m.param("Slots", 1, "Core beats a bus beat (1 unless two or more fit in one).");
  m.ports(kClock + std::vector<Port>{
                       {"input", 0, "enable_i", "The stream is the one its consumer reads now."},
                       {"input", 0, "in_valid_i", "The read buffer holds a bus beat."},
                       {"input", 0, "in_data_i", "The bus beat at the buffer's head.", "BusBits"},
                       {"output", 0, "in_pop_o", "Take the head from the buffer this cycle."},
                       {"input", 0, "last_i", "The beat presented is its record's last."},
                       {"output", 0, "out_valid_o", "A core beat is presented."},
                       {"input", 0, "out_ready_i", "The core takes it this cycle."},
                       {"output", 0, "out_data_o", "The core beat.", "BeatBits"}});
  m << fill(R"(
  if (Parts > 1) begin : g_join
    localparam int PartBits = $clog2(Parts);
    logic [PartBits-1:0] part_d, part_q;
    logic [(Parts-1)*BusBits-1:0] held_q;
    logic [Parts*BusBits-1:0] joined;
    logic unused_last;
    assign unused_last = last_i;
    assign joined      = {in_data_i, held_q};
    assign out_valid_o = enable_i && in_valid_i && part_q == PartBits'(Parts - 1);
    assign out_data_o  = joined[BeatBits-1:0];
    assign in_pop_o    = enable_i && in_valid_i && (part_q != PartBits'(Parts - 1) || out_ready_i);
    assign part_d      = !in_pop_o                      ? part_q
                       : part_q == PartBits'(Parts - 1) ? '0
                                                        : part_q + PartBits'(1);
    // No reset: a part is read only after it was written.
    for (genvar p = 0; p < Parts - 1; p++) begin : g_part
      always_ff @(posedge clk_i) begin
        if (in_pop_o && part_q == PartBits'(p)) held_q[p*BusBits +: BusBits] <= in_data_i;
      end
    end
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) part_q <= '0;
      else         part_q <= part_d;
    end
    if (Parts*BusBits > BeatBits) begin : g_pad
      logic unused_pad;
      assign unused_pad = ^joined[Parts*BusBits-1:BeatBits];
    end
  end else if (Slots > 1) begin : g_split
    localparam int SlotBits = $clog2(Slots);
    logic [SlotBits-1:0] slot_d, slot_q;
    logic fire;
    assign out_valid_o = enable_i && in_valid_i;
    assign fire        = out_valid_o && out_ready_i;
    assign in_pop_o    = fire && (last_i || slot_q == SlotBits'(Slots - 1));
    assign slot_d      = in_pop_o ? '0 : fire ? slot_q + SlotBits'(1) : slot_q;
    @@mux@@ #(
      .Entries(Slots),
      .Width  (BeatBits),
      .SelBits(SlotBits)
    ) u_slot (
      .data_i(in_data_i[Slots*BeatBits-1:0]),
      .sel_i (slot_q),
      .data_o(out_data_o)
    );
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) slot_q <= '0;
      else         slot_q <= slot_d;
    end
    if (BusBits > Slots*BeatBits) begin : g_pad
      logic unused_pad;
      assign unused_pad = ^in_data_i[BusBits-1:Slots*BeatBits];
    end
  end else begin : g_pass
    logic unused_pass;
    assign unused_pass = last_i ^ clk_i ^ rst_ni;
    assign out_valid_o = enable_i && in_valid_i;
    assign in_pop_o    = out_valid_o && out_ready_i;
    assign out_data_o  = in_data_i[BeatBits-1:0];
    if (BusBits > BeatBits) begin : g_pad
      logic unused_pad;
      assign unused_pad = ^in_data_i[BusBits-1:BeatBits];
    end
  end
)",
            {{"mux", module_name(c, "mux_tree")}});
  m.op("add", "PartBits", "part_d");
  m.op("add", "SlotBits", "slot_d");
  m.op("mux", "BeatBits", "u_slot", "Slots-1");
  return m.file();
}

// ------------------------------------------------------------------------------ feed

namespace {

// The feed's header widths and its ports: the feed queue, the read buffer, the core's inputs.
void feed_ports(SvModule& m, const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const CoreTiming& co = d.core;
  const LayerBits lb(d);
  m.header_localparam("DataBits", ax.data_bits, "Bits of a bus beat.");
  m.header_localparam("HalfBits", d.storage.width(), "Bits of a binary16 value.");
  m.header_localparam("Lines", c.pe_lines, "PE lines P: rows of a group.");
  m.header_localparam("BeatLanes", co.beat_activations, "Activations a token beat.");
  m.header_localparam("LaneBits", co.weight_lane_bits, "One line's lane of a weight beat.");
  m.header_localparam("RowsBits", lb.rows, "Bits of a group's row count, 1 .. Lines.");
  m.header_localparam("GroupBits", lb.groups, "Bits of a layer's group count.");
  m.header_localparam("RegAddrBits", kRegAddrBits, "Bits of a register-file word address.");
  m.header_localparam("RegWordBits", kRegWordBits, "Bits of a register-file word.");
  m.ports(kClock +
          std::vector<Port>{
              {"input", 0, "lay_valid_i", "A layer waits in the feed queue."},
              {"output", 0, "lay_pop_o", "Take it."},
              {"input", 0, "lay_tables_i", "Its tables come first in the read buffer."},
              {"input", 0, "lay_groups_i", "Its groups.", "GroupBits"},
              {"input", 0, "lay_last_rows_i", "Rows of its last group.", "RowsBits"},
              {"input", 0, "lay_scale_i", "The token's scale s_a, binary16.", "HalfBits"},
              {"input", 0, "buf_valid_i", "The read buffer holds a beat."},
              {"input", 0, "buf_data_i", "The beat at its head.", "DataBits"},
              {"output", 0, "buf_pop_o", "Take it."},
              {"input", 0, "core_idle_i", "The core is idle: its registers may be written."},
              {"output", 0, "reg_we_o", "The core's register port: write strobe."},
              {"output", 0, "reg_addr_o", "Its word address.", "RegAddrBits"},
              {"output", 0, "reg_wdata_o", "Its write data.", "RegWordBits"},
              {"output", 0, "x_valid_o", "A token beat is offered."},
              {"input", 0, "x_ready_i", "The core takes it."},
              {"output", 0, "x_data_o", "The token beat.", "BeatLanes*HalfBits"},
              {"output", 0, "x_scale_o", "The token's scale s_a.", "HalfBits"},
              {"output", 0, "w_valid_o", "A weight beat is offered."},
              {"input", 0, "w_ready_i", "The core takes it."},
              {"output", 0, "w_data_o", "The weight beat.", "Lines*LaneBits"},
              {"output", 0, "w_scale_o", "The group's scales.", "Lines*HalfBits"},
              {"output", 0, "w_rows_o", "Rows of the layer's last group.", "RowsBits"},
              {"output", 0, "w_last_o", "The group is the layer's last."},
              {"output", 0, "record_beat_o", "A bus beat of a weight record is taken."},
              {"output", 0, "stall_o", "The core could take a weight beat and has none."},
              {"output", 0, "idle_o", "No layer being fed."}});
}

// The localparams: the beats' parts and slots, the record's head, the tables and their regions.
void feed_localparams(SvModule& m, const Config& c, const Derived& d) {
  const AxiTiming& ax = d.axi;
  const CoreTiming& co = d.core;
  const auto map = register_map(c);
  const auto region = [&](const string& name) -> const RegisterRegion& {
    for (const auto& r : map) {
      if (r.name == name) return r;
    }
    throw std::logic_error("gen/axi_feed.cpp: no register region " + name);
  };
  m.localparam("XBeatBits", ax.x_beat_bits, "Bits of a token beat.");
  m.localparam("XParts", ax.x_parts, "Bus beats a token beat.");
  m.localparam("XSlots", ax.x_slots, "Token beats a bus beat.");
  m.localparam("WBeatBits", ax.w_beat_bits, "Bits of a weight beat.");
  m.localparam("WParts", ax.w_parts, "Bus beats a weight beat.");
  m.localparam("WSlots", ax.w_slots, "Weight beats a bus beat.");
  m.localparam("ScaleBeats", ax.scale_beats, "Bus beats of a record's head of scales.");
  m.localparam("HeadBeatBits", index_width(ax.scale_beats), "Bits of a head beat's number.");
  m.localparam("GroupBeats", co.group_beats, "Weight beats a group.");
  m.localparam("GroupBeatBits", index_width(co.group_beats), "Bits of a weight beat's number.");
  m.localparam("TokenBeats", co.token_beats, "Token beats a token.");
  m.localparam("TokenBeatBits", index_width(co.token_beats), "Bits of a token beat's number.");
  m.localparam("TableWords", ax.table_words, "Words of a layer's tables.");
  m.localparam("WordBits", index_width(ax.table_words), "Bits of a table word's number.");
  m.localparam("WordSlots", ax.word_slots, "Table words a bus beat.");
  m.localparam("WordSlotBits", clog2(ax.word_slots), "Bits of a word's slot.");
  for (const char* r : {"lut", "act_codebook", "weight_codebook", "boundaries"}) {
    m.localparam(upper_camel(r) + "Base", region(r).base,
                 fmt::format("Register-file address of region {}.", r));
    m.localparam(upper_camel(r) + "Words", region(r).size, fmt::format("Words of region {}.", r));
  }
}

// The states, the signals and the tables' words into the register file.
void feed_tables(SvModule& m, const Config& c) {
  m << fill(R"(
  localparam logic [2:0] SIdle   = 3'd0;
  localparam logic [2:0] STables = 3'd1;  // the tables into the register file
  localparam logic [2:0] SToken  = 3'd2;  // the token's beats
  localparam logic [2:0] SHead   = 3'd3;  // a record's head of scales
  localparam logic [2:0] SBeats  = 3'd4;  // the record's weight beats

  logic [2:0]               state_q, state_d;
  logic [GroupBits-1:0]     groups_q, groups_d;
  logic [RowsBits-1:0]      last_rows_q;
  logic [HalfBits-1:0]      scale_q, word;
  logic [WordBits-1:0]      word_q, word_d;
  logic [WordSlotBits-1:0]  slot_q, slot_d;
  logic [RegAddrBits-1:0]   raddr_q, raddr_d, raddr_next;
  logic [TokenBeatBits-1:0] xb_q, xb_d;
  logic [HeadBeatBits-1:0]  hb_q, hb_d;
  logic [GroupBeatBits-1:0] wb_q, wb_d;
  logic [ScaleBeats*DataBits-1:0] head_q;
  logic table_write, table_last, table_pop, head_pop, x_pop, w_pop, x_fire, w_fire;

  // The tables: a word a cycle, the register file's regions in regmap.json's order.
  @@mux@@ #(
    .Entries(WordSlots),
    .Width  (HalfBits),
    .SelBits(WordSlotBits)
  ) u_word (
    .data_i(buf_data_i),
    .sel_i (slot_q),
    .data_o(word)
  );
  assign table_write = state_q == STables && buf_valid_i && core_idle_i;
  assign table_last  = word_q == WordBits'(TableWords - 1);
  assign table_pop   = table_write && (table_last || slot_q == WordSlotBits'(WordSlots - 1));
  always_comb begin
    raddr_next = raddr_q + RegAddrBits'(1);
    if (word_q == WordBits'(LutWords - 1)) begin
      raddr_next = RegAddrBits'(ActCodebookBase);
    end else if (word_q == WordBits'(LutWords + ActCodebookWords - 1)) begin
      raddr_next = RegAddrBits'(WeightCodebookBase);
    end else if (word_q == WordBits'(LutWords + ActCodebookWords + WeightCodebookWords - 1)) begin
      raddr_next = RegAddrBits'(BoundariesBase);
    end
  end
)",
            {{"mux", module_name(c, "mux_tree")}});
}

// The token's and the weight beats' unpacking from the buffer's bus beats.
void feed_unpack(SvModule& m, const Config& c) {
  m << fill(R"(
  // The token and the weight beats, from the buffer's bus beats.
  @@unpack@@ #(
    .BusBits (DataBits),
    .BeatBits(XBeatBits),
    .Parts   (XParts),
    .Slots   (XSlots)
  ) u_x (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .enable_i   (state_q == SToken),
    .in_valid_i (buf_valid_i),
    .in_data_i  (buf_data_i),
    .in_pop_o   (x_pop),
    .last_i     (xb_q == TokenBeatBits'(TokenBeats - 1)),
    .out_valid_o(x_valid_o),
    .out_ready_i(x_ready_i),
    .out_data_o (x_data_o)
  );
  @@unpack@@ #(
    .BusBits (DataBits),
    .BeatBits(WBeatBits),
    .Parts   (WParts),
    .Slots   (WSlots)
  ) u_w (
    .clk_i      (clk_i),
    .rst_ni     (rst_ni),
    .enable_i   (state_q == SBeats),
    .in_valid_i (buf_valid_i),
    .in_data_i  (buf_data_i),
    .in_pop_o   (w_pop),
    .last_i     (wb_q == GroupBeatBits'(GroupBeats - 1)),
    .out_valid_o(w_valid_o),
    .out_ready_i(w_ready_i),
    .out_data_o (w_data_o)
  );
  assign x_fire   = x_valid_o && x_ready_i;
  assign w_fire   = w_valid_o && w_ready_i;
  assign head_pop = state_q == SHead && buf_valid_i;
)",
            {{"unpack", module_name(c, "axi_unpack")}});
}

// The state machine: the tables, the token, then each record's head and weight beats.
void feed_states(SvModule& m) {
  m << fill(R"(
  always_comb begin
    state_d   = state_q;
    groups_d  = groups_q;
    word_d    = word_q;
    slot_d    = slot_q;
    raddr_d   = raddr_q;
    xb_d      = xb_q;
    hb_d      = hb_q;
    wb_d      = wb_q;
    lay_pop_o = 1'b0;
    unique case (state_q)
      SIdle: begin
        if (lay_valid_i) begin
          lay_pop_o = 1'b1;
          groups_d  = lay_groups_i;
          word_d    = '0;
          slot_d    = '0;
          raddr_d   = RegAddrBits'(LutBase);
          xb_d      = '0;
          state_d   = lay_tables_i ? STables : SToken;
        end
      end
      STables: begin
        if (table_write) begin
          slot_d  = table_pop ? '0 : slot_q + WordSlotBits'(1);
          word_d  = word_q + WordBits'(1);
          raddr_d = raddr_next;
          if (table_last) state_d = SToken;
        end
      end
      SToken: begin
        if (x_fire) begin
          if (xb_q == TokenBeatBits'(TokenBeats - 1)) begin
            hb_d    = '0;
            state_d = SHead;
          end else begin
            xb_d = xb_q + TokenBeatBits'(1);
          end
        end
      end
      SHead: begin
        if (head_pop) begin
          if (hb_q == HeadBeatBits'(ScaleBeats - 1)) begin
            wb_d    = '0;
            state_d = SBeats;
          end else begin
            hb_d = hb_q + HeadBeatBits'(1);
          end
        end
      end
      SBeats: begin
        if (w_fire) begin
          if (wb_q != GroupBeatBits'(GroupBeats - 1)) begin
            wb_d = wb_q + GroupBeatBits'(1);
          end else if (groups_q == GroupBits'(1)) begin
            state_d = SIdle;
          end else begin
            groups_d = groups_q - GroupBits'(1);
            hb_d     = '0;
            state_d  = SHead;
          end
        end
      end
      default: state_d = SIdle;
    endcase
  end
)",
            {});
}

// The registers, the layer's scale and rows, the record's head and the outputs.
void feed_outputs(SvModule& m, const Derived& d) {
  const AxiTiming& ax = d.axi;
  string head_pad;
  if (int64_t(ax.scale_beats) * ax.data_bits > ax.scale_bits) {
    head_pad =
        "  logic unused_head;\n"
        "  assign unused_head = ^head_q[ScaleBeats*DataBits-1:Lines*HalfBits];\n";
  }
  m << fill(R"(
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q  <= SIdle;
      groups_q <= '0;
      word_q   <= '0;
      slot_q   <= '0;
      raddr_q  <= '0;
      xb_q     <= '0;
      hb_q     <= '0;
      wb_q     <= '0;
    end else begin
      state_q  <= state_d;
      groups_q <= groups_d;
      word_q   <= word_d;
      slot_q   <= slot_d;
      raddr_q  <= raddr_d;
      xb_q     <= xb_d;
      hb_q     <= hb_d;
      wb_q     <= wb_d;
    end
  end

  // No reset: the layer's scale and rows are read only once it is taken, a head once loaded.
  always_ff @(posedge clk_i) begin
    if (lay_pop_o) begin
      scale_q     <= lay_scale_i;
      last_rows_q <= lay_last_rows_i;
    end
  end
  for (genvar h = 0; h < ScaleBeats; h++) begin : g_head
    always_ff @(posedge clk_i) begin
      if (head_pop && hb_q == HeadBeatBits'(h)) head_q[h*DataBits +: DataBits] <= buf_data_i;
    end
  end
@@head_pad@@
  assign buf_pop_o     = table_pop || head_pop || x_pop || w_pop;
  assign reg_we_o      = table_write;
  assign reg_addr_o    = raddr_q;
  assign reg_wdata_o   = word;
  assign x_scale_o     = scale_q;
  assign w_scale_o     = head_q[Lines*HalfBits-1:0];
  assign w_rows_o      = last_rows_q;
  assign w_last_o      = groups_q == GroupBits'(1);
  assign record_beat_o = head_pop || w_pop;
  assign stall_o       = state_q == SBeats && w_ready_i && !w_valid_o;
  assign idle_o        = state_q == SIdle;
)",
            {{"head_pad", head_pad}});
}

}  // namespace

SvFile feed_module(const Config& c, const Derived& d) {
  SvModule m(module_name(c, "axi_feed"),
             "The wrapper's feed of the core (docs/axi.md, Memory layout): takes a layer's beats "
             "from the read buffer in the order they were read and hands them on: the tables, "
             "a binary16 word a cycle into the register file once the core is idle, the token as "
             "token beats (x_scale_o from the descriptor), and each weight record's head of "
             "scales, then its weight beats, with the rows and the last flag of the group.");
  feed_ports(m, c, d);
  feed_localparams(m, c, d);
  feed_tables(m, c);
  feed_unpack(m, c);
  feed_states(m);
  feed_outputs(m, d);
  m.op("add", "RegAddrBits", "raddr_next");
  m.op("eq", "WordBits", "raddr_next", "3");
  m.op("mux", "HalfBits", "u_word", "WordSlots-1");
  return m.file();
}

}  // namespace oasis::gen::axi_detail
