package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// The hook must survive what users' rc files do (issue #30). Each setup
// here is an rc file as people write them, or a real prompt framework from
// a Debian package; a real bash or zsh on a real PTY loads it with
// ttymux's hook, and the session must report exact exit codes by the
// hook, with no error of the hook's on the terminal.

// needProgram returns the path of a program or file a test needs, and
// skips (fails under CI) when it is missing.
func needProgram(t testing.TB, name string) string {
	t.Helper()
	p := name
	if !filepath.IsAbs(name) {
		var err error
		if p, err = exec.LookPath(name); err != nil {
			p = ""
		}
	} else if _, err := os.Stat(name); err != nil {
		p = ""
	}
	if p == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing under CI; .ci/run installs it", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// openRC opens shell with a scratch HOME holding files (name to content),
// as a user whose startup files they are would.
func openRC(t testing.TB, shell string, files map[string]string, args ...string) *session.Session {
	t.Helper()
	home := t.TempDir()
	for name, body := range files {
		p := filepath.Join(home, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	m := newManager(t, session.Options{Shell: shell})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
		Command: shell, Args: args,
		Env: []string{"HOME=" + home, "LANG=C.UTF-8", "TERM=xterm-256color", "ZDOTDIR=", "PROMPT_COMMAND=",
			"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache")},
	}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	logOnFailure(t, s)
	return s
}

// hookErrors matches what a shell prints when the hook's code, or the
// user's composed with it, fails.
var hookErrors = regexp.MustCompile(`syntax error|unbound variable|readonly variable|parameter not set|parse error|bad substitution|__ttymux_\w*: command not found|command not found: __ttymux`)

// checkHooked runs the same commands in s and checks that the hook
// decides each with its exact exit code, and that the terminal never
// showed an error of the hook.
func checkHooked(t *testing.T, s *session.Session) {
	t.Helper()
	if in := s.Info(); !in.Integrated {
		t.Fatalf("not integrated after open (%s)", s.HookProblem())
	}
	failing := "(exit 3)"
	if r := send(t, s, session.SendRequest{Text: "echo $-"}); strings.Contains(r.Output, "e") {
		// errexit ends the shell at (exit 3); a negated command's
		// status is one it does not act on.
		failing = "(exit 3) && true"
	}
	for _, tt := range []struct{ text, output, code string }{
		{"echo hello", "hello", "0"},
		{failing, "", "3"},
		{"sleep 0.2; echo slept", "slept", "0"},
		{"cd /tmp && pwd", "/tmp", "0"},
	} {
		r := send(t, s, session.SendRequest{Text: tt.text})
		if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != tt.code || !strings.HasSuffix(r.Output, tt.output) {
			t.Fatalf("%q: complete=%v via=%q exit=%s output=%q note=%q; want exit-code %s, output ending %q",
				tt.text, r.Complete, r.Via, exitCode(r), r.Output, r.Note, tt.code, tt.output)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	all, err := s.Read(ctx, session.ReadRequest{Mode: "range", FromLine: 1, ToLine: 100000})
	if err != nil {
		t.Fatal(err)
	}
	if e := hookErrors.FindString(all.Output); e != "" {
		t.Fatalf("the terminal showed an error (%q):\n%s", e, all.Output)
	}
}

// bashPreexec is the shape of bash-preexec's install: a DEBUG trap for
// preexec, its precmd first in PROMPT_COMMAND, installed at the first
// prompt by a string it appends and later removes, rewriting the first
// element of PROMPT_COMMAND.
const bashPreexec = `
__bp_preexec_ran=0
__bp_precmd_invoke_cmd() { local s=$?; __bp_preexec_ran=0; return $s; }
__bp_preexec_invoke_exec() { [[ -n ${COMP_LINE-} ]] && return; __bp_preexec_ran=1; }
__bp_install() {
	[[ "${PROMPT_COMMAND[*]:-}" == *__bp_precmd_invoke_cmd* ]] && return 1
	trap '__bp_preexec_invoke_exec "$_"' DEBUG
	local existing="${PROMPT_COMMAND//$__bp_install_string/:}"
	PROMPT_COMMAND='__bp_precmd_invoke_cmd'$'\n'"$existing"$'\n''__bp_interactive_mode'
}
__bp_interactive_mode() { :; }
__bp_install_string=$'__bp_trap_string="$(trap -p DEBUG)"\ntrap - DEBUG\n__bp_install'
PROMPT_COMMAND="${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}$__bp_install_string"
`

// TestHookSurvivesBashRC: bash setups that broke the hook before issue
// #30. On the old hook the pyenv-virtualenv line gave PROMPT_COMMAND ";;"
// (a syntax error at every prompt: not integrated after 5 s, then 30 s
// hangs), set -u printed "PS0: unbound variable", a readonly
// PROMPT_COMMAND or PS1 printed "readonly variable" at every prompt or
// never reported, and set -e ended the shell when a command's status was
// not 0 (the hook returned it).
func TestHookSurvivesBashRC(t *testing.T) {
	bash := needProgram(t, "bash")
	for _, tt := range []struct{ name, rc string }{
		{"pyenv-virtualenv: a trailing ;", "_my_hook() { local ret=$?; return $ret; }\nPROMPT_COMMAND=\"_my_hook;${PROMPT_COMMAND-}\"\n"},
		{"a trailing ; and space", "PROMPT_COMMAND='history -a; '\n"},
		{"a trailing newline", "PROMPT_COMMAND=$'history -a\\n'\n"},
		{"history -a; $PROMPT_COMMAND", "PROMPT_COMMAND=\"history -a; $PROMPT_COMMAND\"\n"},
		{"a trailing &", "PROMPT_COMMAND='true &'\n"},
		{"an array", "PROMPT_COMMAND=(history\\ -a 'echo -n')\n"},
		{"readonly PROMPT_COMMAND", "PROMPT_COMMAND='history -a'\nreadonly PROMPT_COMMAND\n"},
		{"readonly PS1", "PS1='\\u@\\h:\\w\\$ '\nreadonly PS1\n"},
		{"PS0 set", "PS0='\\[\\e[0m\\]'\n"},
		{"readonly PS0", "PS0=''\nreadonly PS0\n"},
		{"set -u", "set -u\nPS1='\\$ '\n"},
		{"set -e", "set -e\n"},
		{"set -euo pipefail", "set -euo pipefail\n"},
		{"bash-preexec", bashPreexec},
		{"a DEBUG trap", "trap 'LAST_CMD=$BASH_COMMAND' DEBUG\n"},
		{"a prompt with command substitution", "PS1='$(date +%s)$(true) \\w \\$ '\n"},
		{"a banner and a slow rc", "echo 'Welcome: the rc file is slow'\nsleep 0.3\n"},
		{"liquidprompt", "[[ $- = *i* ]] && source /usr/share/liquidprompt/liquidprompt\n"},
		{"powerline", "POWERLINE_BASH_CONTINUATION=1\nPOWERLINE_BASH_SELECT=1\nsource /usr/share/powerline/bindings/bash/powerline.sh\n"},
		{"bash-completion", "source /usr/share/bash-completion/bash_completion\n"},
		{"fzf", "source /usr/share/doc/fzf/examples/key-bindings.bash\n"},
		{"direnv", "eval \"$(direnv hook bash)\"\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range regexp.MustCompile(`/usr/share/\S+|direnv`).FindAllString(tt.rc, -1) {
				needProgram(t, f)
			}
			t.Parallel()
			s := openRC(t, bash, map[string]string{".bashrc": tt.rc})
			checkHooked(t, s)
			if tt.name == "set -e" || tt.name == "set -euo pipefail" {
				// A status the shell's own errexit does not act on (a
				// negated command) must not end the shell in the hook.
				r := send(t, s, session.SendRequest{Text: "! true"})
				if r.Via != session.ViaExitCode || exitCode(r) != "1" {
					t.Fatalf("! true: via %q exit %s", r.Via, exitCode(r))
				}
				if r := send(t, s, session.SendRequest{Text: "echo alive"}); r.Output != "alive" {
					t.Fatalf("the shell ended after ! true: %+v", r)
				}
			}
		})
	}
}

// TestHookSurvivesZshRC: zsh setups that broke the hook before issue #30:
// precmd_functions assigned (not appended) in .zshrc dropped the D mark
// (not integrated after 5 s, then every command hung).
func TestHookSurvivesZshRC(t *testing.T) {
	zsh := needProgram(t, "zsh")
	for _, tt := range []struct {
		name  string
		files map[string]string
		args  []string
	}{
		{"precmd_functions assigned", map[string]string{".zshrc": "my_precmd() { :; }\nprecmd_functions=(my_precmd)\npreexec_functions=()\nPROMPT='%% '\n"}, nil},
		{"PROMPT_SUBST", map[string]string{".zshrc": "setopt PROMPT_SUBST\nPROMPT='$(print -n x)%~ %# '\nRPROMPT='$(date +%s)'\n"}, nil},
		{"NO_UNSET and KSH_ARRAYS", map[string]string{".zshrc": "setopt NO_UNSET KSH_ARRAYS\nPROMPT='%% '\n"}, nil},
		{"ZDOTDIR in .zshenv", map[string]string{".zshenv": "ZDOTDIR=$HOME/.config/zsh\n", ".config/zsh/.zshrc": "precmd_functions=()\nPROMPT='zd%% '\n"}, nil},
		{"login shell", map[string]string{".zprofile": "export FROM_ZPROFILE=1\n", ".zshrc": "precmd_functions=()\n", ".zlogin": "precmd_functions=()\n"}, []string{"-l"}},
		{"zsh-autosuggestions", map[string]string{".zshrc": "source /usr/share/zsh-autosuggestions/zsh-autosuggestions.zsh\n"}, nil},
		{"zsh-syntax-highlighting", map[string]string{".zshrc": "source /usr/share/zsh-syntax-highlighting/zsh-syntax-highlighting.zsh\n"}, nil},
		{"powerlevel9k", map[string]string{".zshrc": "source /usr/share/powerlevel9k/powerlevel9k.zsh-theme\n"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, body := range tt.files {
				for _, f := range regexp.MustCompile(`/usr/share/\S+`).FindAllString(body, -1) {
					needProgram(t, f)
				}
			}
			t.Parallel()
			s := openRC(t, zsh, tt.files, tt.args...)
			checkHooked(t, s)
			if tt.name == "login shell" {
				if r := send(t, s, session.SendRequest{Text: "echo $FROM_ZPROFILE"}); r.Output != "1" {
					t.Fatalf("a login zsh did not read .zprofile: %q", r.Output)
				}
			}
		})
	}
}

// checkFallback runs commands in s, whose hook does not report, and checks
// that each completes by the lower layers (never a timeout, never "an
// earlier command is still running") with its output.
func checkFallback(t *testing.T, s *session.Session) {
	t.Helper()
	for _, tt := range []struct{ text, output string }{
		{"echo hello", "hello"},
		{"(exit 3)", ""},
		{"sleep 0.3; echo slept", "slept"},
		{"echo again", "again"},
	} {
		r := send(t, s, session.SendRequest{Text: tt.text, Timeout: 10 * time.Second})
		if !r.Complete || r.Via == session.ViaTimeout || r.Output != tt.output || r.State != "prompt" {
			t.Fatalf("%q: complete=%v via=%q state=%q output=%q note=%q; want complete with output %q at the prompt",
				tt.text, r.Complete, r.Via, r.State, r.Output, r.Note, tt.output)
		}
		if strings.Contains(r.Note, "hook") {
			t.Fatalf("%q: the note on the hook came again: %q", tt.text, r.Note)
		}
	}
}

// TestBrokenHookFoundAtOnce: rc files that leave the hook unable to report.
// The session must know at its first prompt (not after the 5 s ready
// timeout), say why in the open note (the error line the terminal showed,
// or the hook's own word), and complete commands by the lower layers. On
// the old code a C mark alone made the session "ready": open took 5 s and
// every command then waited 30 s, "an earlier command is still running".
func TestBrokenHookFoundAtOnce(t *testing.T) {
	bash := needProgram(t, "bash")
	for _, tt := range []struct{ name, rc, cause string }{
		{"the rc file execs another shell", "exec bash --norc --noprofile\n", "first prompt"},
		{"readonly PROMPT_COMMAND and PS1", "PROMPT_COMMAND='history -a'\nPS1='$ '\nreadonly PROMPT_COMMAND PS1\n", "readonly"},
		{"readonly PROMPT_COMMAND, promptvars off", "shopt -u promptvars\nPROMPT_COMMAND='history -a'\nPS1='$ '\nreadonly PROMPT_COMMAND\n", "promptvars is off"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newManager(t, session.Options{Shell: bash, ReadyTimeout: time.Minute})
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(tt.rc), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// With a ready timeout of a minute, an open that returns
			// within the test's deadline found the broken hook itself.
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Env: []string{"HOME=" + home, "LANG=C.UTF-8", "PROMPT_COMMAND="}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if s.Info().Integrated || !strings.Contains(s.OpenNote(), tt.cause) || !strings.Contains(s.OpenNote(), "hook") {
				t.Fatalf("integrated=%v, open note %q; want not integrated and a note naming %q", s.Info().Integrated, s.OpenNote(), tt.cause)
			}
			checkFallback(t, s)
		})
	}
}

// TestHookStopsReporting: a command replaces the hook (PROMPT_COMMAND
// assigned at the prompt, exec of a bash without it). The prompt comes
// back with a C mark and no D: the session must notice at that prompt,
// complete the command by the lower layers, say so once, and go on
// without the hook. On the old code the command waited its whole
// timeout.
func TestHookStopsReporting(t *testing.T) {
	zsh := needProgram(t, "zsh")
	for _, text := range []string{"PROMPT_COMMAND=true", "exec bash --norc --noprofile", "precmd_functions=()"} {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			var s *session.Session
			if strings.HasPrefix(text, "precmd") {
				s = openRC(t, zsh, map[string]string{".zshrc": "PROMPT='%% '\n"})
			} else {
				s = openShell(t, newManager(t, session.Options{}))
			}
			logOnFailure(t, s)
			if !s.Info().Integrated {
				t.Fatal("not integrated")
			}
			r := send(t, s, session.SendRequest{Text: text, Timeout: 10 * time.Second})
			if !r.Complete || r.Via == session.ViaTimeout || !strings.Contains(r.Note, "stopped reporting") {
				t.Fatalf("%q: complete=%v via=%q note=%q; want complete and a note that the hook stopped", text, r.Complete, r.Via, r.Note)
			}
			if s.Info().Integrated {
				t.Fatal("still integrated")
			}
			checkFallback(t, s)
		})
	}
}

// TestEchoIsNeverAnInputPrompt: a command line ending in ? or : whose
// command prints nothing for a while left its own echo as the last line,
// which the human-wait rule took for a program asking ("Name: "): plain
// bash returned "sleep 1; echo $?" after 305 ms, complete: false, state
// input_prompt (issue #30). The echo of what was typed never asks.
func TestEchoIsNeverAnInputPrompt(t *testing.T) {
	bash := needProgram(t, "bash")
	for _, text := range []string{"sleep 1; echo $?", "sleep 1; echo done:", "sleep 1 # why?"} {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			m := newManager(t, session.Options{Shell: bash})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			// No hook: --norc keeps ttymux's out, as in a shell typed
			// into the session.
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Command: bash, Args: []string{"--norc", "--noprofile"}, Env: []string{"HOME=" + t.TempDir(), "PS1=$ "}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			r := send(t, s, session.SendRequest{Text: text, Timeout: 10 * time.Second})
			if !r.Complete || r.State == "input_prompt" {
				t.Fatalf("%q: complete=%v via=%q state=%q output=%q note=%q", text, r.Complete, r.Via, r.State, r.Output, r.Note)
			}
		})
	}
}

// TestLoginBashIntegrates: open_local {args: ["-l"]}. A login bash ignores
// --rcfile, so on the old code the hook never loaded (not integrated, 5 s
// to open). ttymux starts it as an interactive bash that reads the login
// files in bash -l's order (/etc/profile, then the first of
// ~/.bash_profile, ~/.bash_login, ~/.profile).
func TestLoginBashIntegrates(t *testing.T) {
	bash := needProgram(t, "bash")
	for _, args := range [][]string{{"-l"}, {"--login"}, {"-il"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			t.Parallel()
			s := openRC(t, bash, map[string]string{
				".bash_profile": "export FROM_PROFILE=yes\n. ~/.bashrc\n",
				".profile":      "export FROM_DOT_PROFILE=yes\n",
				".bashrc":       "PROMPT_COMMAND=\"_h;${PROMPT_COMMAND-}\"\n_h() { :; }\n",
			}, args...)
			checkHooked(t, s)
			if r := send(t, s, session.SendRequest{Text: "echo ${FROM_PROFILE-no}-${FROM_DOT_PROFILE-no}"}); r.Output != "yes-no" {
				t.Fatalf("login files read: %q, want yes-no (.bash_profile, not .profile)", r.Output)
			}
		})
	}
}

// TestTerminalIntegrationsCoexist: terminals ship shell integrations that
// print OSC 133 or 633 marks of their own (VS Code 633 A-E, WezTerm's 133
// with aid=, kitty's 133;A;k=s, iTerm2-style 133;D with a status). Their
// marks carry no nonce, so they never count as ttymux's (the D;99 below
// would give exit 99), and ttymux's hook must not stop theirs: every
// command still prints them.
func TestTerminalIntegrationsCoexist(t *testing.T) {
	bash := needProgram(t, "bash")
	zsh := needProgram(t, "zsh")
	for _, tt := range []struct {
		name, shell, file, rc string
		theirs                []string // marks theirs must still print at every prompt
	}{
		{"VS Code 633", bash, ".bashrc", `__vsc_prompt_cmd() { local s=$?; printf '\e]633;D;%s\a\e]633;P;Cwd=%s\a' "$s" "$PWD"; printf '\e]133;D;99\a'; return $s; }
__vsc_prompt_cmd_original=$PROMPT_COMMAND
PROMPT_COMMAND=(__vsc_prompt_cmd)
PS1='\[\e]633;A\a\]vsc$ \[\e]633;B\a\]'
PS0='\[\e]633;C\a\]'
`, []string{"\x1b]633;D;", "\x1b]633;A\x07", "\x1b]133;D;99\x07"}},
		{"WezTerm 133 with aid", bash, ".bashrc", `__wez_precmd() { local s=$?; printf '\e]133;D;%s;aid=%s\a\e]133;A;cl=m;aid=%s\a' "$s" "$$" "$$"; return $s; }
PROMPT_COMMAND="__wez_precmd;${PROMPT_COMMAND-}"
PS0='\e]133;C;\a'
PS1='wez$ \[\e]133;B\a\]'
`, []string{"\x1b]133;D;", "\x1b]133;C;\x07"}},
		{"kitty and Ghostty in zsh", zsh, ".zshrc", `_kitty_precmd() { print -n "\e]133;D;99\a\e]133;A;k=s\a"; }
_kitty_preexec() { print -n "\e]133;C\a"; }
precmd_functions=(_kitty_precmd)
preexec_functions=(_kitty_preexec)
PROMPT='kitty%% '
`, []string{"\x1b]133;D;99\x07", "\x1b]133;A;k=s\x07", "\x1b]133;C\x07"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openRC(t, tt.shell, map[string]string{tt.file: tt.rc})
			checkHooked(t, s)
			// The last command's output and the prompt after it still
			// carry theirs.
			r := send(t, s, session.SendRequest{Text: "echo last"})
			if exitCode(r) != "0" || r.Via != session.ViaExitCode {
				t.Fatalf("echo last: via %q exit %s", r.Via, exitCode(r))
			}
			// Their hooks run after ours (ours is first in
			// PROMPT_COMMAND): the result may come back before their
			// marks are printed, so wait for them, bounded.
			var after string
			missing := func() []string {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				raw, err := s.Read(ctx, session.ReadRequest{Mode: "range", Raw: true, FromLine: 1, ToLine: 100000})
				if err != nil {
					t.Fatal(err)
				}
				_, after, _ = strings.Cut(raw.Output, "echo last")
				var out []string
				for _, m := range tt.theirs {
					if !strings.Contains(after, m) {
						out = append(out, m)
					}
				}
				return out
			}
			// No event says a far program printed: poll, bounded.
			testwait.Poll(t.Context(), 10*time.Second, func() bool { return len(missing()) == 0 })
			for _, m := range missing() {
				t.Errorf("their mark %q is missing after the last command: %q", m, after)
			}
		})
	}
}

// TestIntegrateComposes: send {integrate: true} types the same hook as
// the rc file (one implementation), so it composes the same way in a
// nested shell: a PROMPT_COMMAND ending in ; under set -u (the old nested
// hook prepended to it: ";;" never, but "PS0: unbound variable"), and,
// integrated twice, one D mark per prompt (two would end the next command
// early).
func TestIntegrateComposes(t *testing.T) {
	for _, nested := range []string{
		"PS1='inner$ ' PROMPT_COMMAND='true;' bash --norc --noprofile -o nounset",
		"PS1='inner%% ' zsh -f -o nounset -o ksharrays",
	} {
		prog := ""
		for _, f := range strings.Fields(nested) {
			if !strings.Contains(f, "=") && !strings.Contains(f, "'") {
				prog = f
				break
			}
		}
		t.Run(prog, func(t *testing.T) {
			needProgram(t, prog)
			t.Parallel()
			m := newManager(t, session.Options{})
			s := openShell(t, m)
			logOnFailure(t, s)
			if r := send(t, s, session.SendRequest{Text: nested}); !r.Complete {
				t.Fatalf("nested shell: %+v", r)
			}
			for i := range 2 {
				r := send(t, s, session.SendRequest{Integrate: true})
				if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != "0" {
					t.Fatalf("integrate %d: complete=%v via=%q exit=%s output=%q", i, r.Complete, r.Via, exitCode(r), r.Output)
				}
			}
			for _, tt := range []struct{ text, output, code string }{
				{"sleep 0.3; echo nested", "nested", "0"},
				{"(exit 4)", "", "4"},
				{"echo after", "after", "0"},
			} {
				r := send(t, s, session.SendRequest{Text: tt.text})
				if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != tt.code || r.Output != tt.output {
					t.Fatalf("%q: complete=%v via=%q exit=%s output=%q", tt.text, r.Complete, r.Via, exitCode(r), r.Output)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			all, err := s.Read(ctx, session.ReadRequest{Mode: "range", FromLine: 1, ToLine: 100000})
			if err != nil {
				t.Fatal(err)
			}
			if e := hookErrors.FindString(all.Output); e != "" {
				t.Fatalf("the terminal showed an error (%q):\n%s", e, all.Output)
			}
			raw, err := s.Read(ctx, session.ReadRequest{Mode: "range", Raw: true, FromLine: 1, ToLine: 100000})
			if err != nil {
				t.Fatal(err)
			}
			_, after, _ := strings.Cut(raw.Output[strings.LastIndex(raw.Output, "echo after"):], "after\r\n")
			if n := strings.Count(after, "\x1b]133;D;"); n != 1 {
				t.Fatalf("%d D marks at the prompt after the last command, want 1: %q", n, after)
			}
		})
	}
}

// TestBrokenHookPersistent: the same in a session the agent keeps (the
// default), whose Conn reports the foreground and the echo flag but not
// whether the shell waits to read: the broken hook is still found at the
// first prompt, and a hook that stops is found at its prompt.
func TestBrokenHookPersistent(t *testing.T) {
	bash := needProgram(t, "bash")
	for _, tt := range []struct{ name, rc, first, cause string }{
		{"the rc file execs another shell", "exec bash --norc --noprofile\n", "", "first prompt"},
		{"the hook is replaced at the prompt", "PS1='$ '\n", "PROMPT_COMMAND=true", "stopped reporting"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(tt.rc), 0o600); err != nil {
				t.Fatal(err)
			}
			m := session.NewManager(session.Options{
				Kinds: []session.Kind{session.LocalKind(&local.Opener{})}, StateDir: t.TempDir(),
				Shell: bash, Keeper: startAgent(t), ReadyTimeout: time.Minute,
			})
			t.Cleanup(m.CloseAll)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true, Target: transport.Target{
				Env: []string{"HOME=" + home, "LANG=C.UTF-8", "PROMPT_COMMAND="}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if !s.Persistent() {
				t.Fatalf("not persistent: %s", s.OpenNote())
			}
			note := s.OpenNote()
			if tt.first != "" {
				if !s.Info().Integrated {
					t.Fatalf("not integrated: %s", note)
				}
				r := send(t, s, session.SendRequest{Text: tt.first, Timeout: 10 * time.Second})
				if !r.Complete {
					t.Fatalf("%q: %+v", tt.first, r)
				}
				note = r.Note
			}
			if s.Info().Integrated || !strings.Contains(note, tt.cause) {
				t.Fatalf("integrated=%v note %q; want not integrated and a note saying %q", s.Info().Integrated, note, tt.cause)
			}
			checkFallback(t, s)
		})
	}
}

// TestReadonlyPS0SaysNoC: with a readonly PS0 bash prints no C marks, and
// a D with no C before it ended a command only after 1 s of quiet, so
// every command took a second (issue #30's timing target: its own runtime
// plus 100 ms). The hook's D marks now say c=0, and the echo of the typed
// line tells where the output starts, as for the POSIX shells. On the old
// hook the session did not know (HookPrintsNoC false); how long a command
// takes is BenchmarkRCCorpus's to say.
func TestReadonlyPS0SaysNoC(t *testing.T) {
	s := openRC(t, needProgram(t, "bash"), map[string]string{".bashrc": "PS0=''\nreadonly PS0\n"})
	checkHooked(t, s)
	if !session.HookPrintsNoC(s) {
		t.Fatal("a bash with a readonly PS0 prints no C marks, and its D marks do not say so")
	}
	r := send(t, s, session.SendRequest{Text: "echo one; echo two"})
	if r.Output != "one\ntwo" || r.Earlier != nil || r.Via != session.ViaExitCode {
		t.Fatalf("output %q earlier %+v via %q", r.Output, r.Earlier, r.Via)
	}
}

// TestReadonlyPS1SaysNoB: with a readonly PS1 the hook can mark no
// prompt's end, and open waited its whole 250 ms for a B mark after the
// first prompt (readonly-ps1 of the rc corpus: ready 274 ms, its floor
// 7 ms). The hook now says so (133;P;b=0) and open does not wait (74 ms
// on a loaded machine); on the old hook the session did not know.
func TestReadonlyPS1SaysNoB(t *testing.T) {
	s := openRC(t, needProgram(t, "bash"), map[string]string{".bashrc": "PS1='\\u@\\h:\\w\\$ '\nreadonly PS1\n"})
	checkHooked(t, s)
	if !session.HookMarksNoPromptEnd(s) {
		t.Fatal("a bash with a readonly PS1 marks no prompt's end, and its hook did not say so")
	}
}
