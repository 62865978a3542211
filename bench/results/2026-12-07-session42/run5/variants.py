"""Writes copies of the stdlib whose STREAM_K path leaves parts out (their outputs are wrong on
purpose; they only time what each part costs): variants.py SRC_STDLIB DST_ROOT.
  nowait   the finishing part does not wait for the count (reads the slots at once)
  noread   ... nor reads the slots (the others' parts still stored and counted)
  nofixup  no part is stored, counted, waited for or read: the shared k-steps alone"""
import os, shutil, sys
src, dst = sys.argv[1:]
WAIT = '''                while done < others {
                    done = atomic_add(counters + tile, 0, sem = "acquire");
                }
'''
READ = '''                for j in range(first, program_id(0)) {
                    acc += load(slots + j * (BM * BN), cache = "cg");
                }
'''
STORE = '''                store(slots + program_id(0) * (BM * BN), acc);
                atomic_add(counters + tile, 1, sem = "release");
'''
POLL = '''                var done = atomic_add(counters + tile, 0, sem = "acquire");
'''
RESET = '''                if others > 0 {
                    atomic_xchg(counters + tile, 0, sem = "relaxed");
                }
'''
cuts = {"nowait": [WAIT], "noread": [WAIT, READ], "nofixup": [WAIT, READ, STORE, POLL, RESET]}
for name, parts in cuts.items():
    out = os.path.join(dst, name)
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(src, out)
    path = os.path.join(out, "std", "fp8_matmul.tk")
    text = open(path).read()
    for part in parts:
        assert text.count(part) == 1, (name, part)
        text = text.replace(part, "")
    if name == "nofixup":  # the part before a tile's end keeps its product alive (a sum, no store)
        anchor = "                // A part before the tile's end: into this program's slot, then counted.\n"
        assert text.count(anchor) == 1
        text = text.replace(anchor, anchor + "                atomic_add(counters + tile, (sum(sum(acc, 1), 0) > 1.0e30) as i32, sem = \"relaxed\");\n")
    open(path, "w").write(text)
