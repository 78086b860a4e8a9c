package session_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// TestPromptRedrawsAreNotEarlier: what a shell draws at its prompt while
// it sits idle there (a right prompt drawn after the left one, a prompt
// drawn again by zle reset-prompt, fish's right prompt drawn late) is not
// output, and the next result's earlier must not hold it; a job's notice
// printed at the prompt is output and stays (issue #30). Each case waits,
// on the screen (which reads nothing), until the shell has drawn it, then
// sends the next command. Before the A marks and the cut of marked
// prompts, the zsh and fish cases returned the prompt's text in earlier:
// zsh's right prompt came after the B mark (themes assign RPROMPT, and
// RPS1, which the hook looked at, then reads empty), a redrawn two-line
// prompt's first line did not match the learned prompt, and fish had no
// B mark at all (a right prompt ending in a newline, as date prints,
// moved the B before the text: fish-custom-prompt in the rc corpus).
func TestPromptRedrawsAreNotEarlier(t *testing.T) {
	for _, tt := range []struct {
		name, shell, file, rc string
		first                 string         // the command before
		drawn                 *regexp.Regexp // on the screen once the shell drew what is tested
		earlier               string         // what earlier must hold ("" for no earlier)
	}{
		{
			name: "zsh RPROMPT after a failure", shell: "zsh", file: ".zshrc",
			rc:    "PROMPT='%% '\nRPROMPT='%(?..err-%?)'\n",
			first: "(exit 3)", drawn: regexp.MustCompile(`err-3`),
		},
		{
			name: "zsh reset-prompt of a two-line prompt", shell: "zsh", file: ".zshrc",
			rc:    "setopt PROMPT_SUBST\nn=0\nPROMPT=$'tick-${n}\\n%% '\nTMOUT=1\nTRAPALRM() { (( n++ )); zle reset-prompt }\n",
			first: "n=0", drawn: regexp.MustCompile(`tick-[2-9]`),
		},
		{
			name: "fish right prompt drawn late", shell: "fish", file: ".config/fish/config.fish",
			rc:    "function fish_greeting; end\nfunction fish_prompt; printf 'f> '; end\nfunction fish_right_prompt; set -l s $status; sleep 0.3; set_color brblack; echo right-$s; set_color normal; end\n",
			first: "false", drawn: regexp.MustCompile(`right-1`),
		},
		{
			name: "bash job notice stays", shell: "bash", file: ".bashrc",
			rc:    "PS1='$ '\nset -b\n",
			first: "sleep 0.2 &", drawn: regexp.MustCompile(`Done`), earlier: "Done",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shell := needProgram(t, tt.shell)
			s := openRC(t, shell, map[string]string{tt.file: tt.rc})
			if !s.Info().Integrated {
				t.Fatalf("not integrated: %s", s.HookProblem())
			}
			send(t, s, session.SendRequest{Text: tt.first})
			testwait.Until(t, "the shell to draw "+tt.drawn.String(), 10*time.Second, func() bool {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				r, err := s.Read(ctx, session.ReadRequest{Mode: "screen"})
				return err == nil && tt.drawn.MatchString(r.Output)
			})
			if tt.earlier != "" {
				// The screen can show what the log does not hold yet: the
				// next send must be typed after it, or it is that send's
				// own output and not earlier.
				testwait.Until(t, tt.earlier+" in the log", 10*time.Second, func() bool {
					b, _, _, _ := s.OutputFrom(0, 1<<20)
					return strings.Contains(string(b), tt.earlier)
				})
			}
			r := send(t, s, session.SendRequest{Text: "echo next"})
			if r.Output != "next" || exitCode(r) != "0" {
				t.Fatalf("echo next: output %q exit %s", r.Output, exitCode(r))
			}
			switch {
			case tt.earlier == "" && r.Earlier != nil:
				t.Fatalf("earlier %+v; the prompt drawn is not output", *r.Earlier)
			case tt.earlier != "" && (r.Earlier == nil || !strings.Contains(r.Earlier.Output, tt.earlier)):
				t.Fatalf("earlier %+v; want it to hold %q", r.Earlier, tt.earlier)
			case tt.earlier != "" && strings.Contains(r.Earlier.Output, "$"):
				t.Fatalf("earlier %q holds the prompt", r.Earlier.Output)
			}
		})
	}
}
