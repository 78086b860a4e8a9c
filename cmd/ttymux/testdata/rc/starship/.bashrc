export PATH="$HOME/.local/bin:$PATH"

# eval "$(starship init bash)"
starship_preexec() {
    local PREV_LAST_ARG=$1
    if [ "$PREEXEC_READY" = "true" ]; then
        PREEXEC_READY=false
        STARSHIP_START_TIME=$(starship time)
    fi
    : "$PREV_LAST_ARG"
}
starship_precmd() {
    local STATUS=$? PIPE="${PIPESTATUS[@]}";
    "${starship_precmd_user_func-:}"
    if [[ $STARSHIP_START_TIME ]]; then
        STARSHIP_END_TIME=$(starship time)
        STARSHIP_DURATION=$((STARSHIP_END_TIME - STARSHIP_START_TIME))
        PS1="$(starship prompt --status=$STATUS --jobs="$(jobs -p | wc -l)" --cmd-duration=$STARSHIP_DURATION --pipestatus="$PIPE")"
        unset STARSHIP_START_TIME
    else
        PS1="$(starship prompt --status=$STATUS --jobs="$(jobs -p | wc -l)" --pipestatus="$PIPE")"
    fi
    PREEXEC_READY=true;
}
dbg_trap="$(trap -p DEBUG | cut -d' ' -f3 | tr -d \')"
if [[ -z "$dbg_trap" ]]; then
    trap 'starship_preexec "$_"' DEBUG
fi
if [[ -z "$PROMPT_COMMAND" ]]; then
    PROMPT_COMMAND="starship_precmd"
elif [[ "$PROMPT_COMMAND" != *"starship_precmd" ]]; then
    PROMPT_COMMAND="${PROMPT_COMMAND%;};starship_precmd;"
fi
STARSHIP_START_TIME=$(starship time)
export STARSHIP_SHELL="bash"
