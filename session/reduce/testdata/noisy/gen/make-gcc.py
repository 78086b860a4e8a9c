import random, sys
random.seed(11)
N = int(sys.argv[1])
dirs = ['core','net','util']
files = []
for i in range(N):
    d = dirs[i % 3]
    name = f'{d}/mod{i:03d}'
    files.append(name)
    body = f'#include <stdio.h>\n#include <string.h>\n#include "common.h"\n\nint mod{i:03d}_init(struct ctx *c)\n{{\n\tif (c == NULL)\n\t\treturn -1;\n\tc->count += {i};\n\treturn 0;\n}}\n\nint mod{i:03d}_run(struct ctx *c, const char *arg)\n{{\n\tsize_t n = strlen(arg);\n\tfor (size_t k = 0; k < n; k++)\n\t\tc->sum += (unsigned char)arg[k];\n\treturn (int)n;\n}}\n'
    if i == 71:
        body = body.replace('c->count += 71;', 'c->count += 71\n\tc->flags |= 1;')  # missing semicolon
    if i == 163:
        body = body.replace('return (int)n;', 'return (int)n + undefined_total;')
    if i == 254:
        body = body.replace('c->sum += (unsigned char)arg[k];', 'c->sum += lookup_weight(c, arg[k]);')
        body = body.replace('#include "common.h"\n', '#include "common.h"\n\nstatic int lookup_weight(struct ctx *c, char ch, int scale);\n')
    if i in (20, 120, 200):
        body = body.replace('\tsize_t n = strlen(arg);', '\tint unused;\n\tsize_t n = strlen(arg);')
    open(f'src/{name}.c','w').write(body)
open('include/common.h','w').write('#ifndef COMMON_H\n#define COMMON_H\nstruct ctx { int count; int flags; unsigned long sum; };\n#endif\n')
objs = ' '.join(f'obj/{f}.o' for f in files)
mk = f'''CC = gcc
CFLAGS = -O2 -g -Wall -Wextra -std=c11 -Iinclude -fPIC -D_GNU_SOURCE -DVERSION=\\"1.4.2\\"
OBJS = {objs}

all: libwidget.so

libwidget.so: $(OBJS)
\t$(CC) -shared -o $@ $(OBJS)

obj/%.o: src/%.c include/common.h
\t@mkdir -p $(dir $@)
\t$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

clean:
\trm -rf obj libwidget.so
'''
open('Makefile','w').write(mk)
