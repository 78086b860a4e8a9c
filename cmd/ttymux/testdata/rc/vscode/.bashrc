export PATH="$HOME/.local/bin:$PATH"
PS1='\u@\h:\w\$ '
PROMPT_COMMAND='history -a'
# VS Code shell integration, manual installation
[[ "$TERM_PROGRAM" == "vscode" ]] && . "$(code --locate-shell-integration-path bash)"
