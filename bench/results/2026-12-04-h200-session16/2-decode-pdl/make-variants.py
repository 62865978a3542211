#!/usr/bin/env python3
"""Makes run 2's stdlib variants in .pack/ from the tree's stdlib (run from the repository root)."""
import os, re, shutil
def variant(name, wanted, mode):
    dst = '.pack/stdlib_' + name
    shutil.copytree('stdlib', dst)
    for f in os.listdir(dst + '/std'):
        p = dst + '/std/' + f
        s = open(p).read()
        for m in list(re.finditer(r'\nkernel (\w+)\(', s))[::-1]:
            if not wanted(m.group(1)):
                continue
            end = s.index('\n}\n', m.end())
            body = s[m.end():end]
            if 'gdc_launch_dependents();' not in body:
                continue
            body = re.sub(r'\n *gdc_launch_dependents\(\);', '', body)
            if mode == 'late':
                body += '\n    gdc_launch_dependents(); // late: once this program stored its outputs'
            else:  # plain
                body = re.sub(r'\n *gdc_wait\(\);[^\n]*', '', body)
                body = re.sub(r'\n *prefetch_l2\([^\n]*', '', body)
            s = s[:m.end()] + body + s[end:]
        open(p, 'w').write(s)
variant('late', lambda k: True, 'late')
variant('lategemv', lambda k: k == 'fp8_gemv_row', 'late')
variant('plaingemv', lambda k: k == 'fp8_gemv_row', 'plain')
