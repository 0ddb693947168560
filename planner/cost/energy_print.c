/* The energy and latency lines of `fusionplan cost` (DESIGN §19): each
 * figure as the sum of its terms, with units, where the hardware gives it. */
#include "planner/cost/energy.h"
#include "planner/util/format.h"

void lf_group_perf_print(FILE *out, lf_cost_model *cm, const lf_bitset *group, const lf_group_cost *c)
{
    const lf_hw *hw = lf_cost_hw(cm);
    int has_energy = lf_hw_has_energy(hw), has_latency = hw->peak_macs > 0;
    lf_group_perf p;
    if ((!has_energy && !has_latency) || lf_group_perf_eval(cm, group, c, &p) != LF_OK)
        return;
    char macs[32], sram[32], dram[32], act[32], w[32];
    lf_format_commas(p.macs, macs, sizeof macs);
    lf_format_commas(p.sram_bytes, sram, sizeof sram);
    lf_format_commas(p.sram_dram, dram, sizeof dram);
    lf_format_commas(p.sram_act, act, sizeof act);
    lf_format_commas(p.sram_weights, w, sizeof w);
    fputc('\n', out);
    if (has_energy) {
        lf_hw_energy e;
        lf_hw_energy_model(hw, &e);
        fprintf(out, "SRAM      %s B = DRAM staged %s + activations %s + weights %s (read once per row "
                     "step, %d steps)\n",
                sram, dram, act, w, (int)(c->steps > 1 ? c->steps : 1));
        fprintf(out, "energy    %.6g pJ = DRAM %.6g (%.4g pJ/B) + SRAM %.6g (%.4g pJ/B) + MAC %.6g (%s "
                     "MACs x %.4g pJ)\n",
                p.total_pj, p.dram_pj, e.dram_pj_per_byte, p.sram_pj, e.sram_pj_per_byte, p.mac_pj,
                macs, e.mac_pj);
    }
    if (has_latency)
        fprintf(out, "latency   %.6g s double-buffered = max(compute %.6g s, memory %.6g s), %s-bound; "
                     "%.6g s without double buffering\n",
                p.latency_s, p.compute_s, p.memory_s, lf_bound_name(p.bound), p.latency_serial_s);
}
