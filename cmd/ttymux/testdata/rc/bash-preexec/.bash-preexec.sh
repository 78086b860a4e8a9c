# A reproduction of how bash-preexec (github.com/rcaloras/bash-preexec)
# hooks into bash: the same variables, functions and PROMPT_COMMAND and
# DEBUG trap shapes, written compactly. What matters for the corpus:
#  - at source time PROMPT_COMMAND gets, after a newline, a string that
#    saves and clears the DEBUG trap and calls __bp_install;
#  - at the first prompt __bp_install sets the DEBUG trap and rewrites
#    PROMPT_COMMAND to "__bp_precmd_invoke_cmd\n<the rest, ';' trimmed>\n__bp_interactive_mode";
#  - each command runs preexec_functions from the DEBUG trap, once per
#    prompt, with the command line taken from history.
[[ -n "${BASH_VERSION:-}" ]] || return 1
[[ "${__bp_imported:-}" == defined ]] && return 0
__bp_imported=defined
__bp_last_ret_value=$?
BP_PIPESTATUS=("${PIPESTATUS[@]}")
__bp_last_argument_prev_command=$_
__bp_inside_precmd=0
__bp_inside_preexec=0
__bp_install_string=$'__bp_trap_string="$(trap -p DEBUG)"\ntrap - DEBUG\n__bp_install'
__bp_preexec_interactive_mode=

__bp_trim() { # var text
  local t=${2:-}
  t="${t#"${t%%[![:space:]]*}"}"
  t="${t%"${t##*[![:space:]]}"}"
  printf -v "$1" '%s' "$t"
}
__bp_sanitize() { # var text: trim whitespace and one ';' at either end
  local s
  __bp_trim s "${2:-}"
  s=${s%;}
  s=${s#;}
  __bp_trim s "$s"
  printf -v "$1" '%s' "$s"
}
__bp_interactive_mode() { __bp_preexec_interactive_mode=on; }
__bp_set_ret_value() { return ${1:-}; }
__bp_precmd_invoke_cmd() {
  __bp_last_ret_value="$?" BP_PIPESTATUS=("${PIPESTATUS[@]}")
  (( __bp_inside_precmd > 0 )) && return
  local __bp_inside_precmd=1 f
  for f in "${precmd_functions[@]}"; do
    if type -t "$f" >/dev/null; then
      __bp_set_ret_value "$__bp_last_ret_value" "$__bp_last_argument_prev_command"
      "$f"
    fi
  done
}
__bp_in_prompt_command() {
  local -a cmds
  IFS=$'\n;' read -rd '' -a cmds <<<"$PROMPT_COMMAND"
  local arg c t
  __bp_trim arg "${1:-}"
  for c in "${cmds[@]:-}"; do
    __bp_trim t "$c"
    [[ "$t" == "$arg" ]] && return 0
  done
  return 1
}
__bp_preexec_invoke_exec() {
  __bp_last_argument_prev_command="${1:-}"
  (( __bp_inside_preexec > 0 )) && return
  local __bp_inside_preexec=1
  [[ -t 1 ]] || return
  [[ -n "${COMP_LINE:-}" ]] && return
  [[ -n "${__bp_preexec_interactive_mode:-}" ]] || return
  (( BASH_SUBSHELL == 0 )) && __bp_preexec_interactive_mode=
  if __bp_in_prompt_command "${BASH_COMMAND:-}"; then
    __bp_preexec_interactive_mode=
    return
  fi
  local this_command
  this_command="$(HISTTIMEFORMAT= builtin history 1 | sed '1 s/^ *[0-9][0-9]*[* ] //')"
  [[ -n "$this_command" ]] || return
  local f ret=0 r
  for f in "${preexec_functions[@]:-}"; do
    if type -t "$f" >/dev/null; then
      __bp_set_ret_value ${__bp_last_ret_value:-}
      "$f" "$this_command"
      r=$?
      [[ $r != 0 ]] && ret=$r
    fi
  done
  __bp_set_ret_value "$ret" "$__bp_last_argument_prev_command"
}
__bp_install() {
  [[ "${PROMPT_COMMAND:-}" == *__bp_precmd_invoke_cmd* ]] && return 1
  trap '__bp_preexec_invoke_exec "$_"' DEBUG
  local prior_trap
  prior_trap=$(sed "s/[^']*'\(.*\)'[^']*/\1/" <<<"${__bp_trap_string:-}")
  unset __bp_trap_string
  if [[ -n "$prior_trap" ]]; then
    eval '__bp_original_debug_trap() {
      '"$prior_trap"'
    }'
    preexec_functions+=(__bp_original_debug_trap)
  fi
  local existing
  existing="${PROMPT_COMMAND//$__bp_install_string[;$'\n']}"
  existing="${existing//$__bp_install_string}"
  __bp_sanitize existing "$existing"
  PROMPT_COMMAND=$'__bp_precmd_invoke_cmd\n'
  [[ -n "$existing" ]] && PROMPT_COMMAND+=${existing}$'\n'
  PROMPT_COMMAND+='__bp_interactive_mode'
  precmd_functions+=(precmd)
  preexec_functions+=(preexec)
  __bp_precmd_invoke_cmd
  __bp_interactive_mode
}
__bp_install_after_session_init() {
  local s
  __bp_sanitize s "$PROMPT_COMMAND"
  [[ -n "$s" ]] && PROMPT_COMMAND=${s}$'\n'
  PROMPT_COMMAND+=${__bp_install_string}
}
[[ -z "${__bp_delay_install:-}" ]] && __bp_install_after_session_init
