package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A promptDef is one workflow a person can start from the client (Claude
// Code shows prompts as slash commands): a few lines that teach the tools
// in the order the job needs them.
type promptDef struct {
	prompt *mcp.Prompt
	// text builds the message from the arguments; required ones are
	// present (the handler checks).
	text func(args map[string]string) string
}

func promptDefs() []promptDef {
	return []promptDef{
		{&mcp.Prompt{
			Name: "serial_bringup", Title: "Bring up a serial console",
			Description: "Find the board's serial port, open it at the right rate, and get to a prompt.",
			Arguments: []*mcp.PromptArgument{
				{Name: "port", Description: "device path, e.g. /dev/ttyUSB0 (empty: find it with serial_ports)"},
				{Name: "baud", Description: "bits per second (default 115200)"},
			},
		}, func(a map[string]string) string {
			port := a["port"]
			if port == "" {
				port = "the port serial_ports lists for the board (match the USB vendor/product or the serial number)"
			}
			baud := orDefault(a["baud"], "115200")
			return fmt.Sprintf(`Bring up the serial console of a board with ttymux.
1. Port: %s. Open it with open_serial {port, baud: %s, persistent: true} so the console keeps being captured if the server restarts.
2. send {text: "", enter: true, until: "(login:|# |\\$ |=> |> )", timeout_ms: 3000} to wake it and see which prompt answers (U-Boot "=> ", BusyBox "# ", a login prompt).
3. If the output is garbage (the result's note says so), the rate is wrong: close the session and try 9600, 38400, 57600, 921600. An Arduino-class board resets when the port opens: open it with dtr: "keep".
4. At a login prompt, ask me for the password with send {ask_secret: "Password for the board"} when ttymux offers it, or send {secret: true}; never guess credentials.
5. For each command pass until with the prompt you saw, and read {mode: "range", timestamps: true} for long boot logs (each line with its arrival time). Paste blocks into a bootloader with char_delay_ms (e.g. 1) so it keeps up. Report what you find before changing anything on the board.`, port, baud)
		}},
		{&mcp.Prompt{
			Name: "homelab_ssh", Title: "Work on a homelab host over SSH",
			Description: "Reach a host through a jump host as OpenSSH would, with a persistent shell there.",
			Arguments: []*mcp.PromptArgument{
				{Name: "host", Description: "the host: an ssh_config alias or a name", Required: true},
				{Name: "jump", Description: "jump host(s), as for ssh -J (empty: what ssh_config says)"},
			},
		}, func(a map[string]string) string {
			jump := ""
			if a["jump"] != "" {
				jump = fmt.Sprintf(`, jump: %q`, a["jump"])
			}
			return fmt.Sprintf(`Work on %[1]s over SSH with ttymux.
1. open_ssh {host: %[1]q%[2]s, persistent: true}: ssh_config aliases, keys and the agent work as with ssh; a long job keeps running if the link drops.
2. An unknown host key is refused: show me the fingerprint from the error and ask before retrying with accept_new_host_key: true. A changed key is always refused: stop and tell me.
3. Check where you are first: send {text: "hostname; uptime; df -h /"}.
4. One command per send; the result has exit_code. Use until for REPLs and interactive tools.
5. Before changing configuration, show me the diff (or the command) and wait for my go-ahead. Close the session when done, or detach to leave it running.`, a["host"], jump)
		}},
		{&mcp.Prompt{
			Name: "service_failure", Title: "Find why a service fails",
			Description: "Read a failing systemd service's status, logs and config on a host, without changing anything.",
			Arguments: []*mcp.PromptArgument{
				{Name: "service", Description: "the systemd unit, e.g. nginx", Required: true},
				{Name: "host", Description: "an ssh_config alias (empty: this machine)"},
			},
		}, func(a map[string]string) string {
			open := `open_local {}`
			if a["host"] != "" {
				open = fmt.Sprintf(`open_ssh {host: %q}`, a["host"])
			}
			return fmt.Sprintf(`Find why the service %[1]s fails, reading only.
1. %[2]s, then send {text: "systemctl status %[1]s --no-pager -l"}.
2. send {text: "journalctl -u %[1]s -b --no-pager -n 200"}: the error lines are kept even when the output is folded; read {mode: "range"} shows folded lines.
3. Find its config (systemctl cat %[1]s) and check it with the service's own test command when it has one (nginx -t, sshd -t, apachectl configtest).
4. Look at what it needs: ports (ss -ltnp), disk (df -h), permissions of the files the error names.
5. Change nothing: report the cause with the lines that show it, and the fix you propose.`, a["service"], open)
		}},
	}
}

func orDefault(v, def string) string {
	if strings.TrimSpace(v) == "" {
		return def
	}
	return v
}

// registerPrompts adds the workflow prompts to srv.
func registerPrompts(srv *mcp.Server) {
	for _, d := range promptDefs() {
		srv.AddPrompt(d.prompt, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			args := req.Params.Arguments
			for _, a := range d.prompt.Arguments {
				if a.Required && strings.TrimSpace(args[a.Name]) == "" {
					return nil, invalidParams("prompt %s needs the argument %q (%s)", d.prompt.Name, a.Name, a.Description)
				}
			}
			return &mcp.GetPromptResult{
				Description: d.prompt.Description,
				Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: d.text(args)}}},
			}, nil
		})
	}
}
