#!/usr/bin/env python3
"""ctest `bench.profile-fp8`: profile_fp8.py's readers of Nsight Compute's pages on excerpts of
session 27's reports (bench/results/2026-12-05-h200-session27/run2): a details page's first
value for a label, and a SASS page's stall samples grouped by instruction count."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_fp8  # noqa: E402

DETAILS = """  fp8_matmul_persistent (132, 1, 1)x(256, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Section: GPU Speed Of Light Throughput
    ----------------------- ----------- ------------
    Metric Name             Metric Unit Metric Value
    ----------------------- ----------- ------------
    Elapsed Cycles                cycle      597,771
    SM: Pipe Tensor Cycles Active                 %        86.39
    lts__t_sectors_srcunit_tex_op_read.sum      sector   81,242,512
    Elapsed Cycles                cycle      1
    Table Name : Workload Distribution
    ------------------ ----------- ------------
    Metric Name        Metric Unit Metric Value
    ------------------ ----------- ------------
    L1 Active Cycles         cycle   567,143.95
    SM Active Cycles         cycle   567,143.95
    SM Active Cycles         cycle      584,570
    SM Active Cycles         cycle      565,232
    SM Active Cycles         cycle   74,863,002
"""

SASS = '''"Kernel Name","fp8_matmul_persistent",
"Address","Source","Warp Stall Sampling (All Samples)","Warp Stall Sampling (Not-issued Samples)","# Samples","Instructions Executed"
"0x1","      LDC R1, c[0x0][0x28]","19","16","19","1584"
"0x2","      QGMMA.64x128x32.F32.E4M3.E4M3 R88, gdesc[UR8], R88","60","1","60","507904"
"0x3","      WARPGROUP.DEPBAR.LE gsb0, 0x1","20","1","20","507904"
"0x4","      EXIT","1","1","1",""
'''


class Readers(unittest.TestCase):
    def test_metric_takes_the_first_value_without_commas(self):
        self.assertEqual(profile_fp8.metric(DETAILS, "Elapsed Cycles"), "597771")
        self.assertEqual(profile_fp8.metric(DETAILS, "SM: Pipe Tensor Cycles Active"), "86.39")
        self.assertEqual(profile_fp8.metric(DETAILS, "lts__t_sectors_srcunit_tex_op_read.sum"), "81242512")

    def test_sm_active_cycles_and_the_time_past_the_busiest_sm(self):
        self.assertEqual(profile_fp8.sm_active(DETAILS), (567143.95, 584570.0, 565232.0))
        self.assertEqual(profile_fp8.idle_rows(DETAILS), ("567144 / 584570 / 565232", "13201"))

    def test_a_page_without_the_distribution_gives_dashes(self):
        self.assertIsNone(profile_fp8.sm_active("Elapsed Cycles  cycle  5\n"))
        self.assertEqual(profile_fp8.idle_rows("    Elapsed Cycles                cycle      5\n"), ("-", "-"))

    def test_a_missing_metric_is_a_dash(self):
        self.assertEqual(profile_fp8.metric(DETAILS, "lrc__lts2lrc_sectors_op_read.sum"), "-")

    def test_samples_group_by_instruction_count(self):
        groups = profile_fp8.samples_by_count(SASS)
        self.assertEqual(groups[0][0], 507904)
        self.assertAlmostEqual(groups[0][1], 80.0)
        self.assertEqual(groups[1], (1584, 19.0))
        self.assertEqual(groups[2], (0, 1.0))

    def test_a_page_without_samples_gives_none(self):
        self.assertEqual(profile_fp8.samples_by_count("==ERROR== no kernels were profiled\n"), [])


if __name__ == "__main__":
    unittest.main()
