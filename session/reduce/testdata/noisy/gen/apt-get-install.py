# Builds apt-get-install.txt: the first part is a real
# `apt-get install --download-only -y imagemagick` run on Debian 12 (host name
# replaced); the dpkg phase after "Fetched" is synthesized in dpkg's format
# from the same package list, with a failing post-installation script.
import re
import sys
lines = open(sys.argv[1]).read().split('\n')
out = []
pkgs = []
for l in lines:
    if l.startswith('Download complete') or l.startswith('N: Ignoring') or l == '':
        continue
    l = l.replace('deb.debian.org', 'deb.example.org')
    m = re.match(r'Get:\d+ \S+ \S+ \S+ (\S+) (\S+) (\S+) \[', l)
    if m:
        pkgs.append((m.group(1), m.group(2), m.group(3)))
    out.append(l)
# apt prints a W: line before the lists when a source is configured twice.
out.insert(3, "W: Target Packages (main/binary-amd64/Packages) is configured multiple times in /etc/apt/sources.list:1 and /etc/apt/sources.list.d/debian.sources:1")
out.append("debconf: delaying package configuration, since apt-utils is not installed")
db = 31874
for i, (name, arch, ver) in enumerate(pkgs):
    out.append(f"Selecting previously unselected package {name}.")
    if i == 0:
        out.append(f"(Reading database ... {db} files and directories currently installed.)")
    fv = ver.replace(':', '%3a')
    out.append(f"Preparing to unpack .../{i:02d}-{name}_{fv}_{arch}.deb ...")
    out.append(f"Unpacking {name} ({ver}) ...")
order = sorted(pkgs, key=lambda p: (p[0].startswith('imagemagick'), p[0]))
fail = 'imagemagick-6.q16'
for name, arch, ver in order:
    if name == 'imagemagick':
        continue
    out.append(f"Setting up {name} ({ver}) ...")
    if name == 'fonts-urw-base35':
        out.append("update-alternatives: using /usr/share/fonts/X11/Type1 to provide /usr/share/fonts/X11/Type1/fonts.dir (fonts-type1) in auto mode")
    if name == 'ghostscript':
        out.append("update-alternatives: using /usr/bin/gs to provide /usr/bin/gs (gs) in auto mode")
    if name == fail:
        out += [
            "update-alternatives: using /usr/bin/compare-im6.q16 to provide /usr/bin/compare (compare) in auto mode",
            "update-alternatives: using /usr/bin/animate-im6.q16 to provide /usr/bin/animate (animate) in auto mode",
            "/var/lib/dpkg/info/imagemagick-6.q16.postinst: 41: cannot create /etc/ImageMagick-6/policy.xml.dpkg-new: Read-only file system",
            f"dpkg: error processing package {fail} (--configure):",
            f" installed {fail} package post-installation script subprocess returned error exit status 2",
        ]
ver = dict((n, v) for n, a, v in pkgs)
out += [
    "dpkg: dependency problems prevent configuration of imagemagick:",
    f" imagemagick depends on imagemagick-6.q16 (>= {ver['imagemagick']}); however:",
    "  Package imagemagick-6.q16 is not configured yet.",
    "",
    "dpkg: error processing package imagemagick (--configure):",
    " dependency problems - leaving unconfigured",
    "Processing triggers for libc-bin (2.36-9+deb12u10) ...",
    "Processing triggers for man-db (2.11.2-2) ...",
    "Processing triggers for fontconfig (2.14.1-4) ...",
    "Errors were encountered while processing:",
    f" {fail}",
    " imagemagick",
    "E: Sub-process /usr/bin/dpkg returned an error code (1)",
]
open('apt-get-install.txt', 'w').write('\n'.join(out) + '\n')
