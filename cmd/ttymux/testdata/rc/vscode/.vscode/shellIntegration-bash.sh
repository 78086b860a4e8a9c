# A reproduction of VS Code's bash shell integration (shellIntegration-bash.sh):
# OSC 633 sequences, BEL-terminated.
#   A, B       prompt start and end, wrapped around PS1 (re-wrapped when PS1 changes)
#   E;cmd;nonce  the command line, then C: from a DEBUG trap before the command runs
#   D;status   after the command (D alone when nothing ran), then P;Cwd=dir
# PROMPT_COMMAND is replaced by __vsc_prompt_cmd_original, which evals the
# user's original PROMPT_COMMAND first.
[[ -n "${VSCODE_SHELL_INTEGRATION:-}" ]] && builtin return
VSCODE_SHELL_INTEGRATION=1
__vsc_nonce="${VSCODE_NONCE:-}"
unset VSCODE_NONCE
__vsc_in_command_execution=1
__vsc_current_command=
__vsc_custom_PS1=
__vsc_custom_PS2=
__vsc_escape_value() {
	builtin local LC_ALL=C out
	out=${1//\\/\\\\}
	out=${out//;/\\x3b}
	builtin printf '%s\n' "$out"
}
__vsc_prompt_start() { builtin printf '\e]633;A\a'; }
__vsc_prompt_end() { builtin printf '\e]633;B\a'; }
__vsc_update_cwd() { builtin printf '\e]633;P;Cwd=%s\a' "$(__vsc_escape_value "$PWD")"; }
__vsc_command_output_start() {
	[[ -z "${__vsc_first_prompt-}" ]] && builtin return
	builtin printf '\e]633;E;%s;%s\a' "$(__vsc_escape_value "$__vsc_current_command")" "$__vsc_nonce"
	builtin printf '\e]633;C\a'
}
__vsc_command_complete() {
	if [[ -z "${__vsc_first_prompt-}" ]]; then
		__vsc_update_cwd
		builtin return
	fi
	if [ "$__vsc_current_command" = "" ]; then
		builtin printf '\e]633;D\a'
	else
		builtin printf '\e]633;D;%s\a' "$__vsc_status"
	fi
	__vsc_update_cwd
}
__vsc_update_prompt() {
	if [ "$__vsc_in_command_execution" = 1 ]; then
		if [[ "$__vsc_custom_PS1" == "" || "$__vsc_custom_PS1" != "$PS1" ]]; then
			__vsc_original_PS1=$PS1
			__vsc_custom_PS1="\[$(__vsc_prompt_start)\]$__vsc_original_PS1\[$(__vsc_prompt_end)\]"
			PS1="$__vsc_custom_PS1"
		fi
		if [[ "$__vsc_custom_PS2" == "" || "$__vsc_custom_PS2" != "$PS2" ]]; then
			__vsc_original_PS2=$PS2
			__vsc_custom_PS2="\[$(builtin printf '\e]633;F\a')\]$__vsc_original_PS2\[$(builtin printf '\e]633;G\a')\]"
			PS2="$__vsc_custom_PS2"
		fi
		__vsc_in_command_execution=0
	fi
}
__vsc_precmd() {
	__vsc_command_complete "$__vsc_status"
	__vsc_current_command=
	__vsc_first_prompt=1
	__vsc_update_prompt
}
__vsc_preexec() {
	if [[ ! $BASH_COMMAND == __vsc_prompt* ]]; then
		__vsc_current_command="$(builtin history 1 | sed 's/ *[0-9]* *//')"
	else
		__vsc_current_command=
	fi
	__vsc_command_output_start
}
__vsc_preexec_only() {
	if [ "$__vsc_in_command_execution" = 0 ]; then
		__vsc_in_command_execution=1
		__vsc_preexec
	fi
}
trap '__vsc_preexec_only "$_"' DEBUG
__vsc_update_prompt
__vsc_restore_exit_code() { return "$1"; }
__vsc_prompt_cmd_original() {
	__vsc_status="$?"
	builtin local cmd
	__vsc_restore_exit_code "$__vsc_status"
	for cmd in "${__vsc_original_prompt_command[@]}"; do
		eval "${cmd:-}"
	done
	__vsc_precmd
}
__vsc_prompt_cmd() {
	__vsc_status="$?"
	__vsc_precmd
}
__vsc_original_prompt_command=${PROMPT_COMMAND:-}
if [[ -n "$__vsc_original_prompt_command" && "$__vsc_original_prompt_command" != __vsc_prompt_cmd ]]; then
	PROMPT_COMMAND=__vsc_prompt_cmd_original
else
	PROMPT_COMMAND=__vsc_prompt_cmd
fi
