package fanout

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ttymux/ttymux/session/reduce"
)

// Report is a fanout's result as the model sees it: small, because every
// field costs tokens. Hosts with the same exit code and the same reduced
// output form one group; failures are grouped by kind.
type Report struct {
	FanoutID string `json:"fanout_id"`
	// Summary counts the outcomes: "30 hosts: 28 exit 0, 1 exit 3, 1 unreachable".
	Summary string       `json:"summary"`
	Groups  []Group      `json:"groups,omitempty"`
	Errors  []ErrorGroup `json:"errors,omitempty"`
	Note    string       `json:"note,omitempty"`
}

// Group is hosts whose command exited the same way with the same output.
type Group struct {
	// Hosts in pdsh/ClusterShell notation: node[01-03,07],web1.
	Hosts    string `json:"hosts"`
	Count    int    `json:"count"`
	ExitCode int    `json:"exit_code"`
	Output   string `json:"output"`
}

// ErrorGroup is hosts that failed the same way. Error is the first host's
// message when there are several.
type ErrorGroup struct {
	Hosts string `json:"hosts"`
	Kind  string `json:"kind"`
	Error string `json:"error"`
	// Output is what a host that timed out or was killed printed first.
	Output string `json:"output,omitempty"`
}

// groupLines bounds one group's output before it is folded (head and
// tail kept, error lines kept, the rest in the fanout's resource).
const (
	groupMaxLines = 60
	groupHead     = 20
	groupTail     = 30
	// errorsShown is how many hosts of one failure kind are listed with
	// their own message before the rest share the first's.
	errorsShown = 3
)

// URI is the resource that holds one host's full output.
func URI(id, host string) string { return "ttymux://fanout/" + id + "/" + host }

// Report builds f's report.
func (f *Fanout) Report() Report {
	hosts := f.Hosts()
	rep := Report{FanoutID: f.ID, Note: f.Note()}

	// Reduce each distinct output once, then group by exit code and
	// reduced text.
	reduced := map[string]string{}
	type key struct {
		code int
		out  string
	}
	byKey := map[key]int{}
	var groups []*struct {
		g     Group
		hosts []string
	}
	exits := map[int]int{}
	kinds := map[string][]HostResult{}
	for _, h := range hosts {
		if !h.Done {
			h.Kind, h.Err = KindKilled, "did not finish"
		}
		if h.ExitCode == nil {
			if h.Kind == "" {
				h.Kind = KindError
			}
			kinds[h.Kind] = append(kinds[h.Kind], h)
			continue
		}
		exits[*h.ExitCode]++
		out, ok := reduced[string(h.Output)]
		if !ok {
			out = reduceOutput(h.Output, f.Command, f.ID)
			reduced[string(h.Output)] = out
		}
		k := key{*h.ExitCode, out}
		i, ok := byKey[k]
		if !ok {
			i = len(groups)
			byKey[k] = i
			groups = append(groups, &struct {
				g     Group
				hosts []string
			}{g: Group{ExitCode: *h.ExitCode, Output: out}})
		}
		groups[i].hosts = append(groups[i].hosts, h.Host)
	}
	// Largest group first; ties by exit code, then first host.
	sort.SliceStable(groups, func(a, b int) bool {
		if len(groups[a].hosts) != len(groups[b].hosts) {
			return len(groups[a].hosts) > len(groups[b].hosts)
		}
		return groups[a].g.ExitCode < groups[b].g.ExitCode
	})
	rep.Groups = []Group{}
	for _, g := range groups {
		g.g.Hosts, g.g.Count = HostList(g.hosts), len(g.hosts)
		rep.Groups = append(rep.Groups, g.g)
	}
	if len(rep.Groups) == 0 {
		rep.Groups = nil
	}

	for _, kind := range kindOrder {
		hs := kinds[kind]
		for i, h := range hs {
			if i == errorsShown-1 && len(hs) > errorsShown {
				names := make([]string, 0, len(hs)-i)
				for _, o := range hs[i:] {
					names = append(names, o.Host)
				}
				rep.Errors = append(rep.Errors, ErrorGroup{
					Hosts: HostList(names), Kind: kind,
					Error: fmt.Sprintf("%d hosts; the first, %s: %s (each host's own message: %s)", len(names), h.Host, h.Err, URI(f.ID, "{host}")),
				})
				break
			}
			eg := ErrorGroup{Hosts: h.Host, Kind: kind, Error: h.Err}
			if len(h.Output) > 0 {
				eg.Output = reduceOutput(h.Output, f.Command, f.ID)
			}
			rep.Errors = append(rep.Errors, eg)
		}
	}
	rep.Summary = summary(len(hosts), exits, kinds)
	return rep
}

// summary is "30 hosts: 28 exit 0, 1 exit 3, 1 unreachable".
func summary(n int, exits map[int]int, kinds map[string][]HostResult) string {
	var parts []string
	codes := make([]int, 0, len(exits))
	for c := range exits {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	for _, c := range codes {
		parts = append(parts, fmt.Sprintf("%d exit %d", exits[c], c))
	}
	for _, k := range kindOrder {
		if m := len(kinds[k]); m > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m, k))
		}
	}
	noun := "hosts"
	if n == 1 {
		noun = "host"
	}
	return fmt.Sprintf("%d %s: %s", n, noun, strings.Join(parts, ", "))
}

// reduceOutput renders and reduces one host's output the way send does,
// with smaller folds (there may be many groups); fold markers point at the
// fanout's per-host resource.
func reduceOutput(b []byte, command, id string) string {
	if len(b) == 0 {
		return ""
	}
	lines, nums := reduce.RenderNumbered(b)
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	digitRun := 0
	if len(lines) <= groupMaxLines {
		digitRun = -1 // short output is shown whole
	}
	red := reduce.Reduce(lines, reduce.Options{
		Command:     command,
		MaxLines:    groupMaxLines,
		Head:        groupHead,
		Tail:        groupTail,
		DigitRun:    digitRun,
		FirstLine:   1,
		LineNumbers: nums,
		ReadHint: func(from, to int64) string {
			return "resource " + URI(id, "{host}")
		},
	})
	return red.Text
}

// HostList writes hosts compactly in pdsh/ClusterShell notation, keeping
// their order: runs of three or more names that differ only in a trailing
// number of the same width, consecutive, become prefix[a-b]
// ("node01,node02,node03,node05" is "node[01-03],node05").
func HostList(hosts []string) string {
	var out []string
	for i := 0; i < len(hosts); {
		pre, num, width, ok := splitNum(hosts[i])
		j := i + 1
		if ok {
			for j < len(hosts) {
				p, n, w, ok := splitNum(hosts[j])
				if !ok || p != pre || w != width || n != num+(j-i) {
					break
				}
				j++
			}
		}
		if j-i >= 3 {
			out = append(out, fmt.Sprintf("%s[%0*d-%0*d]", pre, width, num, width, num+(j-i-1)))
			i = j
			continue
		}
		out = append(out, hosts[i])
		i++
	}
	return strings.Join(out, ",")
}

// splitNum splits "node07" into "node", 7 and width 2.
func splitNum(s string) (prefix string, n, width int, ok bool) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	if i == len(s) || len(s)-i > 9 {
		return "", 0, 0, false
	}
	n, err := strconv.Atoi(s[i:])
	if err != nil {
		return "", 0, 0, false
	}
	return s[:i], n, len(s) - i, true
}

// Text is the report's short text form, for clients that show text.
func (r Report) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s)\n", r.Summary, r.FanoutID)
	for _, g := range r.Groups {
		fmt.Fprintf(&b, "%d hosts (%s), exit %d:", g.Count, g.Hosts, g.ExitCode)
		if g.Output == "" {
			b.WriteString(" no output\n")
			continue
		}
		if strings.Contains(g.Output, "\n") {
			b.WriteString("\n" + g.Output + "\n")
		} else {
			b.WriteString(" " + g.Output + "\n")
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "%s %s: %s\n", e.Hosts, e.Kind, e.Error)
	}
	if r.Note != "" {
		b.WriteString(r.Note + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}
