#!/bin/sh
# Makes the throwaway repository behind git-status.txt in the current
# (empty) directory from a copy of GOROOT/src/encoding, then changes it:
# 48 files modified (12 of them staged), 7 deleted, 1 renamed, 6 added,
# 75 untracked. Then: git status
set -eu
cp -r "$(go env GOROOT)/src/encoding" .
git init -q -b main .
git -c user.name=dev -c user.email=dev@example.com add -A
git -c user.name=dev -c user.email=dev@example.com commit -qm "import encoding"
python3 - <<'PY'
import os, random, subprocess
random.seed(9)
files = sorted(subprocess.check_output(['git', 'ls-files', '*.go']).decode().split())
random.shuffle(files)
mod = files[:48]; dele = files[48:55]; staged_mod = mod[:12]
for f in mod:
    with open(f, 'a') as fh: fh.write('\n// touched by the refactor\n')
for f in dele: os.remove(f)
subprocess.check_call(['git', 'add'] + staged_mod)
subprocess.check_call(['git', 'mv', files[60], files[60].replace('.go', '_old.go')])
for i in range(6):
    p = f'encoding/json/new_feature_{i}.go'; open(p, 'w').write('package json\n'); subprocess.check_call(['git', 'add', p])
dirs = ['encoding/json', 'encoding/xml', 'encoding/csv', 'encoding/gob', 'encoding/base64']
for i in range(75):
    open(f'{dirs[i % len(dirs)]}/scratch_{i:02d}.txt', 'w').write('x\n')
PY
