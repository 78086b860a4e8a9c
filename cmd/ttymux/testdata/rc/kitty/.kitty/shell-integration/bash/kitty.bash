# A reproduction of kitty's bash shell integration (kitty.bash).
[[ $- != *i* ]] && builtin return
[[ -z "$KITTY_SHELL_INTEGRATION" ]] && builtin return
builtin declare -A _ksi_prompt
_ksi_prompt=([ps0]='' [ps0_suffix]='' [ps1]='' [ps1_suffix]='' [ps2]='')
builtin unset KITTY_SHELL_INTEGRATION
_ksi_start='\[\e]133;k;start_kitty\a\]'
_ksi_end='\[\e]133;k;end_kitty\a\]'
_ksi_start_suffix='\[\e]133;k;start_suffix_kitty\a\]'
_ksi_end_suffix='\[\e]133;k;end_suffix_kitty\a\]'
# blinking bar cursor at the prompt, default cursor while a command runs
_ksi_prompt[ps1_suffix]+='\[\e[5 q\]'
_ksi_prompt[ps0_suffix]+='\[\e[0 q\]'
# title: the directory at the prompt, the command while it runs
_ksi_prompt[ps1_suffix]+='\[\e]2;\w\a\]'
_ksi_get_current_command() {
	local last_cmd=$(HISTTIMEFORMAT= builtin history 1)
	last_cmd="${last_cmd#*[[:digit:]]*[[:space:]]}"
	last_cmd="${last_cmd#"${last_cmd%%[![:space:]]*}"}"
	builtin printf "\e]2;%s\a" "${last_cmd}"
}
_ksi_prompt[ps0_suffix]+='$(_ksi_get_current_command)'
# marks
_ksi_prompt[ps1]+='\[\e]133;A\a\]'
_ksi_prompt[ps2]+='\[\e]133;A;k=s\a\]'
_ksi_prompt[ps0]+='\[\e]133;C\a\]'
_ksi_prompt[ps0]="$_ksi_start${_ksi_prompt[ps0]}$_ksi_end"
_ksi_prompt[ps0_suffix]="$_ksi_start_suffix${_ksi_prompt[ps0_suffix]}$_ksi_end_suffix"
_ksi_prompt[ps1]="$_ksi_start${_ksi_prompt[ps1]}$_ksi_end"
_ksi_prompt[ps1_suffix]="$_ksi_start_suffix${_ksi_prompt[ps1_suffix]}$_ksi_end_suffix"
_ksi_prompt[ps2]="$_ksi_start${_ksi_prompt[ps2]}$_ksi_end"
_ksi_prompt_command() {
	# strip what an earlier call added (greedy: first start to last end), then add it again
	PS0=${PS0//\\\[\\e\]133;k;start_kitty\\a\\\]*end_kitty\\a\\\]}
	PS0="${_ksi_prompt[ps0]}$PS0"
	PS0=${PS0//\\\[\\e\]133;k;start_suffix_kitty\\a\\\]*end_suffix_kitty\\a\\\]}
	PS0="${PS0}${_ksi_prompt[ps0_suffix]}"
	PS1=${PS1//\\\[\\e\]133;k;start_kitty\\a\\\]*end_kitty\\a\\\]}
	PS1=${PS1//\\\[\\e\]133;k;start_suffix_kitty\\a\\\]*end_suffix_kitty\\a\\\]}
	PS1="${_ksi_prompt[ps1]}$PS1${_ksi_prompt[ps1_suffix]}"
	PS2=${PS2//\\\[\\e\]133;k;start_kitty\\a\\\]*end_kitty\\a\\\]}
	PS2="${_ksi_prompt[ps2]}$PS2"
}
_ksi_pc='builtin declare -F _ksi_prompt_command > /dev/null 2> /dev/null && _ksi_prompt_command'
if [[ -z "${PROMPT_COMMAND}" ]]; then
	PROMPT_COMMAND=([0]="$_ksi_pc")
elif [[ $(builtin declare -p PROMPT_COMMAND 2> /dev/null) =~ 'declare -a PROMPT_COMMAND' ]]; then
	PROMPT_COMMAND+=("$_ksi_pc")
else
	PROMPT_COMMAND="${PROMPT_COMMAND%% }"
	PROMPT_COMMAND="${PROMPT_COMMAND%%;}"
	PROMPT_COMMAND+="; $_ksi_pc"
fi
builtin unset _ksi_pc _ksi_start _ksi_end _ksi_start_suffix _ksi_end_suffix
builtin declare -r _ksi_prompt
