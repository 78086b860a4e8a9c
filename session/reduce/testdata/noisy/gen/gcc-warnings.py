import random
random.seed(5)
out = ['#include <stdio.h>', '#include <stdlib.h>', '#include <string.h>', '']
for i in range(70):
    k = i % 5
    if k == 0:
        out.append(f'int legacy_sum{i}(int *v, unsigned n)\n{{\n\tint total = 0;\n\tfor (int j = 0; j < n; j++)\n\t\ttotal += v[j];\n\tlong big = total * 3;\n\tshort s = big;\n\treturn s;\n}}\n')
    elif k == 1:
        out.append(f'int legacy_cmp{i}(const char *a, const char *b, int flags)\n{{\n\tint unused_{i};\n\tsize_t la = strlen(a);\n\tint r = la - strlen(b);\n\treturn r;\n}}\n')
    elif k == 2:
        out.append(f'double legacy_scale{i}(float x)\n{{\n\tint whole = x * 100;\n\tchar c = whole;\n\treturn c / 3.0f;\n}}\n')
    elif k == 3:
        out.append(f'void legacy_log{i}(FILE *f, long v)\n{{\n\tfprintf(f, "value %d\\n", v);\n}}\n')
    else:
        out.append(f'int legacy_state{i}(int s)\n{{\n\tswitch (s) {{\n\tcase 0:\n\t\ts = 1;\n\tcase 1:\n\t\treturn s + 1;\n\t}}\n}}\n')
out.append('int legacy_broken(int x)\n{\n\treturn x + missing_offset;\n}\n')
open('legacy.c','w').write('\n'.join(out))
