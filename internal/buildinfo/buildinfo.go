// Package buildinfo names a build of ttymux or ttymux-agent the same way in
// both, so that the two can tell whether they come from one build.
package buildinfo

import "runtime/debug"

// Version returns stamped (what install.sh set with -ldflags -X) when not
// empty, else the module version, else the VCS revision
// ("devel-<rev>[-dirty]"), else "devel".
func Version(stamped string) string {
	if stamped != "" {
		return stamped
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "-dirty"
			}
		}
	}
	if rev == "" {
		return "devel"
	}
	return "devel-" + rev[:min(12, len(rev))] + dirty
}
