// SPDX-License-Identifier: Apache-2.0
/* The software of the system wrapper's test (docs/axi.md, The system test): runs layers from
 * memory through the generated C driver alone. oasis_generated.h (written by sim/vltest)
 * includes the config's oasis_<name>_axi.h and names its functions and constants without the
 * config's name: OASIS_AXI(start) is oasis_<name>_axi_start, OASIS_AXI_CONST(BUS_BYTES) is
 * OASIS_<NAME>_BUS_BYTES. Compiled as C99 with -Wall -Wextra -Werror -pedantic. */
#include "axi_tb_sw.h"
#include "oasis_generated.h"

#define K(name) OASIS_AXI_CONST(name)

/* The device of the environment. */
static OASIS_AXI(dev) device(const axi_sw_env *env) {
  OASIS_AXI(dev) dev;
  OASIS_AXI(init)(&dev, env->lite_base);
  dev.read32 = env->read32;
  dev.write32 = env->write32;
  dev.wait_irq = env->wait_irq;
  dev.ctx = env->ctx;
  return dev;
}

static uint64_t align_up(uint64_t a, uint64_t to) { return (a + to - 1u) / to * to; }

/* A bump allocator over the environment's memory: buffers in bus addresses. */
typedef struct arena {
  const axi_sw_env *env;
  uint64_t next;
  int full;
} arena;

static uint64_t take(arena *a, uint64_t bytes, uint64_t align) {
  const uint64_t at = align_up(a->next, align);
  if (at + bytes > a->env->mem_addr + a->env->mem_bytes) {
    a->full = 1;
    return a->env->mem_addr;
  }
  a->next = at + bytes;
  return at;
}

static uint8_t *host(const axi_sw_env *env, uint64_t addr) {
  return env->mem + (addr - env->mem_addr);
}

static void read_status(const OASIS_AXI(dev) * dev, uint32_t status, axi_sw_result *res) {
  res->status = status;
  res->layers_done = OASIS_AXI(read)(dev, K(REG_LAYERS_DONE));
  res->last_tag = OASIS_AXI(read)(dev, K(REG_LAST_TAG));
  res->error_desc = ((uint64_t)OASIS_AXI(read)(dev, K(REG_ERROR_DESC_HI)) << 32) |
                    OASIS_AXI(read)(dev, K(REG_ERROR_DESC_LO));
  res->cycles = OASIS_AXI(counter)(dev, K(REG_CYCLES_LO));
  res->weight_bytes = OASIS_AXI(counter)(dev, K(REG_WEIGHT_BYTES_LO));
  res->stall_cycles = OASIS_AXI(counter)(dev, K(REG_STALL_CYCLES_LO));
}

int axi_sw_check(const axi_sw_env *env) {
  const OASIS_AXI(dev) dev = device(env);
  return OASIS_AXI(check)(&dev);
}

int axi_sw_run(const axi_sw_env *env, const uint16_t *xhat, uint16_t scale,
               const axi_sw_layer *layers, uint32_t n, int tables_by_registers,
               axi_sw_result *res) {
  const OASIS_AXI(dev) dev = device(env);
  OASIS_AXI(layer) d[AXI_SW_MAX_LAYERS];
  arena a;
  uint64_t token;
  uint32_t i;
  if (n == 0 || n > AXI_SW_MAX_LAYERS || OASIS_AXI(check)(&dev) != 0) return -1;
  a.env = env;
  a.next = env->mem_addr + env->arena_offset;
  a.full = 0;
  res->layers = n;
  /* The buffers first, from the arena's first byte (the tests start it a few beats before a
   * 4 KB boundary, so that bursts meet one), then the descriptors, which name them. */
  token = take(&a, K(TOKEN_BYTES), K(BUS_BYTES));
  if (!a.full) OASIS_AXI(pack_token)(host(env, token), xhat);
  for (i = 0; i < n; ++i) {
    const axi_sw_layer *l = &layers[i];
    const uint32_t stride = K(RECORD_BYTES) + l->stride_pad;
    d[i].flags = 0;
    d[i].tables = 0;
    if (i > 0 || !tables_by_registers) {
      d[i].tables = take(&a, K(TABLE_BYTES), K(BUS_BYTES));
      d[i].flags = (uint16_t)K(FLAG_TABLES);
      if (!a.full) {
        OASIS_AXI(pack_tables)(host(env, d[i].tables), l->lut, l->act_codebook,
                               l->weight_codebook, l->boundaries);
      }
    }
    d[i].token = token;
    d[i].weights = take(&a, OASIS_AXI(weight_bytes)(l->rows, stride), K(BUS_BYTES));
    if (!a.full) {
      OASIS_AXI(pack_weights)(host(env, d[i].weights), l->iw, l->sw, l->rows, stride);
    }
    d[i].output = take(&a, 2u * (uint64_t)l->rows, K(BUS_BYTES));
    d[i].rows = l->rows;
    d[i].group_stride = stride;
    d[i].token_scale = scale;
    d[i].tag = l->tag;
    res->output[i] = d[i].output;
    res->rows[i] = l->rows;
  }
  for (i = 0; i < n; ++i) res->desc[i] = take(&a, K(DESC_BYTES), K(DESC_BYTES));
  res->first_desc = res->desc[0];
  for (i = 0; i < n; ++i) {
    d[i].next = i + 1 < n ? res->desc[i + 1] : 0u;
    if (i + 1 < n) d[i].flags = (uint16_t)(d[i].flags | K(FLAG_CHAIN));
    if (!a.full) OASIS_AXI(write_descriptor)(host(env, res->desc[i]), &d[i]);
  }
  res->arena_end = a.next;
  if (a.full) return -1;
  if (tables_by_registers &&
      OASIS_AXI(load_tables)(&dev, layers[0].lut, layers[0].act_codebook,
                             layers[0].weight_codebook, layers[0].boundaries) != 0) {
    return -1;
  }
  if (env->laid_out) env->laid_out(env->ctx, res);
  return axi_sw_start(env, res->first_desc, res);
}

int axi_sw_start(const axi_sw_env *env, uint64_t desc_addr, axi_sw_result *res) {
  const OASIS_AXI(dev) dev = device(env);
  uint32_t status;
  if (OASIS_AXI(start)(&dev, desc_addr) != 0) return -1;
  status = OASIS_AXI(wait)(&dev);
  read_status(&dev, status, res);
  if (status & K(STATUS_ERROR_MASK)) return (int)OASIS_AXI(error_code)(status);
  return (status & K(STATUS_DONE_MASK)) ? 0 : -1;
}
