PS1='\u@\h:\w\$ '
# foot: jump to previous/next prompt (ctrl+shift+z/x)
PS1='\[\e]133;A\e\\\]'"$PS1"
# foot: pipe last command's output
PS0+='\e]133;C\e\\'
command_done() {
    printf '\e]133;D\e\\'
}
osc7_cwd() {
    local strlen=${#PWD}
    local encoded=""
    local pos c o
    for (( pos=0; pos<strlen; pos++ )); do
        c=${PWD:$pos:1}
        case "$c" in
            [-/:_.!\'\(\)~[:alnum:]] ) o="${c}" ;;
            * ) printf -v o '%%%02X' "'${c}" ;;
        esac
        encoded+="${o}"
    done
    printf '\e]7;file://%s%s\e\\' "${HOSTNAME}" "${encoded}"
}
PROMPT_COMMAND=${PROMPT_COMMAND:+$PROMPT_COMMAND; }'command_done; osc7_cwd'
