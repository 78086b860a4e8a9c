package reduce

import (
	"strings"
)

var (
	npmReducer = &cmdReducer{name: "npm", classify: classifyNpm}
	pipReducer = &cmdReducer{name: "pip", classify: classifyPip}
	aptReducer = &cmdReducer{name: "apt", classify: classifyApt}
)

// hasAnyPrefix reports whether s starts with one of ps.
func hasAnyPrefix(s string, ps ...string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// A prefixSet tells whether a line starts with one of many prefixes,
// grouped by first byte so that most lines cost one lookup.
type prefixSet [256][]string

func newPrefixSet(ps ...string) *prefixSet {
	var t prefixSet
	for _, p := range ps {
		t[p[0]] = append(t[p[0]], p)
	}
	return &t
}

func (t *prefixSet) match(s string) bool {
	return s != "" && hasAnyPrefix(s, t[s[0]]...)
}

// aptNoise are the lines of apt's and dpkg's progress.
var aptNoise = newPrefixSet("Reading package lists...", "Building dependency tree...", "Reading state information...",
	"Selecting previously unselected package ", "(Reading database ... ", "Preparing to unpack ",
	"Unpacking ", "Setting up ", "Processing triggers for ", "update-alternatives: using ",
	"Created symlink ", "Removing ", "Purging configuration files for ", "Preconfiguring packages ...",
	"Extracting templates from packages: ", "debconf: delaying package configuration",
	"Fetched ", "Progress: [", "Scanning processes...", "Scanning linux images...", "Running kernel seems to be up-to-date.",
	"No services need to be restarted.", "No containers need to be restarted.", "No user sessions are running outdated binaries.",
	"No VM guests are running outdated hypervisor", "Adding '", "Adding group ", "Adding system user ", "Adding new ",
	"Not creating home directory", "Updating certificates in ", "Running hooks in ")

// pipNoise are pip's lines at the start of a line, pipNoiseIndented
// those after its indentation.
var (
	pipNoise = newPrefixSet("Collecting ", "Requirement already satisfied: ", "Using cached ", "Looking in indexes: ",
		"Looking in links: ", "Processing ", "Obtaining ", "Building wheels for collected packages: ",
		"Downloading ", "Attempting uninstall: ", "Found existing installation: ", "Saved ")
	pipNoiseIndented = newPrefixSet("Downloading ", "Using cached ", "Uninstalling ", "Successfully uninstalled ",
		"Created wheel for ", "Stored in directory: ", "Running setup.py install for ", "Getting requirements to build ",
		"Installing build dependencies", "Preparing metadata ", "Building wheel for ", "Installing backend dependencies",
		"File was already downloaded ", "Link requires a different Python")
)

// onlyOf reports whether s is not empty and made only of characters in set
// and spaces.
func onlyOf(s, set string) bool {
	seen := false
	for _, c := range s {
		if c == ' ' {
			continue
		}
		if !strings.ContainsRune(set, c) {
			return false
		}
		seen = true
	}
	return seen
}

// classifyNpm hides npm's (and pnpm's, yarn's, node-gyp's) download,
// resolution and timing chatter: "npm http fetch GET 200 …", verbose,
// silly, timing and info lines, spinner and progress lines, yarn's
// "[1/4] Resolving packages..." and "info" lines. It keeps warnings, errors
// (npm warn, npm error, npm ERR!, gyp ERR!), the summary ("added 129
// packages", "found 0 vulnerabilities") and anything else (what install
// scripts print) under the generic rules.
func classifyNpm(lines []string, roles []role) func(int, int) string {
	for i, l := range lines {
		switch {
		case hasAnyPrefix(l, "npm http fetch ", "npm http cache ", "npm http "):
			// "npm http fetch GET 200 https://… 45ms (cache miss)": a 4xx
			// or 5xx status is kept.
			roles[i] = rDrop
			if f := strings.Fields(l); len(f) >= 5 && len(f[4]) == 3 && (f[4][0] == '4' || f[4][0] == '5') {
				roles[i] = rMust
			}
		case hasAnyPrefix(l, "npm verb ", "npm verbose ", "npm sill ", "npm silly ", "npm timing ", "npm info ",
			"gyp info ", "gyp verb ", "gyp sill ", "gyp http "):
			// The verbose levels log an error's stack too: its first line
			// ("npm verbose stack Error: command failed") is kept.
			roles[i] = rDrop
			if hasAnyPrefix(l, "npm verbose stack ", "npm verb stack ") && !strings.HasPrefix(strings.SplitN(l, " stack ", 2)[1], " ") {
				roles[i] = rMust
			}
		case hasAnyPrefix(l, "Progress: resolved ", "Downloading ", "Resolving: ") || onlyOf(l, "+-") ||
			onlyOf(l, "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏|/\\-") || onlyOf(l, "█░▓▒#=>.[]%0123456789"):
			roles[i] = rDrop // pnpm and yarn progress, spinners, bars
		case len(l) > 6 && l[0] == '[' && strings.Contains(l[:6], "/") && strings.HasSuffix(l, "..."):
			roles[i] = rDrop // yarn's "[1/4] Resolving packages..."
		case strings.HasPrefix(l, "info ") && !looksLikeError(l[5:]):
			roles[i] = rDrop // yarn
		default:
			roles[i] = generic(l)
		}
	}
	return nil
}

// classifyPip hides pip's collection, download, progress, cache and wheel
// building chatter and keeps "Successfully installed …", ERROR and WARNING
// lines, and anything else (a failing build's output) under the generic
// rules.
func classifyPip(lines []string, roles []role) func(int, int) string {
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		switch {
		case pipNoise.match(l):
			roles[i] = rDrop
		case pipNoiseIndented.match(t):
			roles[i] = rDrop
			if looksLikeError(l) {
				roles[i] = rMust // "Building wheel for x (pyproject.toml) ... error"
			}
		case onlyOf(t, "━╸╺─•|█ 0123456789./:kMGBbits/eta") && strings.ContainsAny(t, "━╸█"):
			roles[i] = rDrop // a progress bar
		default:
			roles[i] = generic(l)
		}
	}
	return nil
}

// classifyApt hides apt's and dpkg's progress: Get:, Hit:, Ign:, "Reading
// package lists...", "Selecting previously unselected package",
// "(Reading database ...", Preparing to unpack, Unpacking, Setting up,
// Processing triggers, update-alternatives and symlink lines. It keeps E:,
// W: and Err: lines, dpkg's errors, the lists of packages to install or
// remove, the space and "N upgraded, N newly installed" summary lines, and
// anything else (a maintainer script's output) under the generic rules.
func classifyApt(lines []string, roles []role) func(int, int) string {
	hiding := false // in a package list that is hidden ("  foo bar baz")
	for i, l := range lines {
		if hiding && l != "" && l[0] == ' ' && !looksLikeError(l) {
			roles[i] = rDrop
			continue
		}
		hiding = false
		switch {
		case hasAnyPrefix(l, "Suggested packages:", "Recommended packages:", "The following additional packages will be installed:"):
			// What else could be installed, and the dependencies that the
			// NEW list names again.
			roles[i], hiding = rDrop, true
		case strings.Contains(l, " upgraded, ") && strings.Contains(l, " newly installed"):
			roles[i] = rKey
		case hasAnyPrefix(l, "E: ", "W: ", "Err:", "dpkg: error", "Errors were encountered"):
			roles[i] = rMust
		case hasAnyPrefix(l, "Get:", "Hit:", "Ign:") && len(l) > 4 && isDigit(l[4]):
			roles[i] = rDrop
		case aptNoise.match(l):
			roles[i] = rDrop // even "Unpacking liberror-perl": a package name is not an error
		default:
			roles[i] = generic(l)
		}
	}
	return nil
}
